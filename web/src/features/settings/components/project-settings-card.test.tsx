import { act, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { ProjectSettings } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { ProjectSettingsCard } from './project-settings-card'

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

function setup(canEdit = true) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser() })
  let settings: ProjectSettings = { clientId: 'c-1', name: 'Bank A', description: 'Retail bank', lastUpdated: '2026-01-01T00:00:00Z', canEdit }
  const calls = mockApi({
    'GET /api/project-settings': () => json(200, settings),
    'PUT /api/project-settings': ({ body }) => {
      const b = body as { name: string; description: string }
      if (b.name === 'Broken') return json(500, { code: 'internal', message: 'The server could not complete the request. Please try again.' })
      settings = { ...settings, ...b }
      return json(200, settings)
    },
    'GET /api/auth/me': () => json(200, makeUser()),
  })
  renderRoutes([{ path: '/client/settings', element: <ProjectSettingsCard clientId="c-1" /> }], '/client/settings')
  return { calls, set: (s: Partial<ProjectSettings>) => (settings = { ...settings, ...s }) }
}

describe('ProjectSettingsCard', () => {
  it('enables Save Changes only after a change, saves, and Cancel puts the saved values back', async () => {
    const { calls } = setup()
    expect(screen.getByText('Project Settings')).toBeInTheDocument()
    const name = await screen.findByDisplayValue('Bank A')
    const save = screen.getByRole('button', { name: 'Save Changes' })
    const cancel = screen.getByRole('button', { name: 'Cancel' })
    expect(save).toBeDisabled()
    expect(cancel).toBeDisabled()
    await userEvent.type(name, ' Group')
    expect(save).toBeEnabled()
    await userEvent.click(cancel)
    expect(name).toHaveValue('Bank A')
    expect(save).toBeDisabled()
    await userEvent.clear(name)
    await userEvent.click(save)
    expect(await screen.findByText('Client name is required')).toBeInTheDocument()
    await userEvent.type(name, 'Bank A Group')
    await userEvent.click(save)
    expect(await screen.findByText('Project settings updated successfully')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'PUT /api/project-settings')!.url).toBe('/api/project-settings?client_id=c-1')
    expect(calls.find((c) => c.key === 'PUT /api/project-settings')!.body).toEqual({ name: 'Bank A Group', description: 'Retail bank' })
    await waitFor(() => expect(save).toBeDisabled())
    await userEvent.clear(name)
    await userEvent.type(name, 'Broken')
    await userEvent.click(save)
    expect(await screen.findByText('Failed to update project settings')).toBeInTheDocument()
  })

  it('is read-only for viewers', async () => {
    setup(false)
    expect(await screen.findByDisplayValue('Bank A')).toBeDisabled()
    expect(screen.getByText('You have read-only access to this project.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Save Changes' })).not.toBeInTheDocument()
  })

  it("shows a colleague's change live", async () => {
    const { set } = setup()
    await screen.findByDisplayValue('Bank A')
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:settings'))
    act(() => socket.frame('client:c-1:settings', 0, 'subscribed'))
    set({ name: 'Bank A Holding' })
    act(() => socket.frame('client:c-1:settings', 1, 'project.updated', { clientId: 'c-1' }))
    expect(await screen.findByDisplayValue('Bank A Holding')).toBeInTheDocument()
  })

  it('says when the settings cannot be loaded', async () => {
    FakeEventSocket.all = []
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
    useAuthStore.setState({ status: 'authenticated', user: makeUser() })
    mockApi({ 'GET /api/project-settings': () => json(500, { code: 'internal', message: 'x' }) })
    renderRoutes([{ path: '/client/settings', element: <ProjectSettingsCard clientId="c-1" /> }], '/client/settings')
    expect(await screen.findByText('Could not load project settings')).toBeInTheDocument()
  })
})
