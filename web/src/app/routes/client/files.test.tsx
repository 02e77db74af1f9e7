import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { filesHandlers, filesState } from '@/testing/files-api'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { Component as FilesPage } from './files'

function render(path: string) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'user' }) })
  mockApi({
    ...filesHandlers(filesState({ pendingValidations: 2 })),
    'GET /api/validations': () => json(200, { items: [], total: 0, page: 1, pageSize: 10, pendingValidations: 2, canApprove: false }),
  })
  renderRoutes([{ path: '/client/files', element: <FilesPage /> }], path)
}

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('Our Files page', () => {
  it('has the Our Files and Alerts tabs, the Alerts tab counting the pending validations', async () => {
    render('/client/files')
    expect(await screen.findByRole('heading', { name: 'Our Files', level: 1 })).toBeInTheDocument()
    const alerts = screen.getByRole('tab', { name: /^Alerts/ })
    await waitFor(() => expect(alerts).toHaveTextContent('Alerts2'))
    await userEvent.click(alerts)
    expect(await screen.findByText('2 files pending validation.')).toBeInTheDocument()
    expect(screen.getByText('Approval permissions required')).toBeInTheDocument()
  })

  it('opens the Alerts tab from the URL', async () => {
    render('/client/files?tab=alerts')
    expect(await screen.findByRole('heading', { name: 'Alerts' })).toBeInTheDocument()
    expect(await screen.findByText('No validations found')).toBeInTheDocument()
  })
})
