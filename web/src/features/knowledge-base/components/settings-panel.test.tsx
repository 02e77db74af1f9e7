import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { KnowledgeSettings } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { documentsLabel, parseChunkWords, SettingsPanel } from './settings-panel'

const SETTINGS: KnowledgeSettings = {
  chunkWords: 200,
  minChunkWords: 50,
  maxChunkWords: 1000,
  searchLanguage: 'English',
  staleDocuments: 0,
  processing: 0,
  updatedBy: null,
  updatedAt: null,
}

beforeEach(() => queryClient.clear())

function setup(initial: KnowledgeSettings = SETTINGS) {
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  let settings = initial
  const calls = mockApi({
    'GET /api/admin/knowledge/settings': () => json(200, settings),
    'PUT /api/admin/knowledge/settings': ({ body }) => {
      const words = (body as { chunkWords: number }).chunkWords
      if (words === 999) return json(422, { code: 'validation', message: 'Refused by the server.' })
      settings = { ...settings, chunkWords: words, staleDocuments: 3, updatedBy: 'Alicia Admin', updatedAt: '2026-12-02T10:00:00Z' }
      return json(200, settings)
    },
    'POST /api/admin/knowledge/reindex': () => {
      settings = { ...settings, staleDocuments: 0, processing: 3 }
      return json(200, { queued: 3 })
    },
  })
  renderRoutes([{ path: '/admin/knowledge-base', element: <SettingsPanel /> }], '/admin/knowledge-base')
  return calls
}

describe('parseChunkWords', () => {
  it('accepts whole numbers within the bounds only', () => {
    const bounds = { minChunkWords: 50, maxChunkWords: 1000 }
    expect(parseChunkWords(' 120 ', bounds)).toBe(120)
    expect(parseChunkWords('50', bounds)).toBe(50)
    expect(parseChunkWords('1000', bounds)).toBe(1000)
    const message = 'Chunk size must be a whole number of words from 50 to 1000.'
    for (const bad of ['', '49', '1001', '60.5', 'many', '-5']) expect(parseChunkWords(bad, bounds)).toBe(message)
    expect(documentsLabel(1)).toBe('1 document')
    expect(documentsLabel(12345)).toBe('12.345 documents')
  })
})

describe('SettingsPanel', () => {
  it('shows the settings, refuses a bad chunk size without calling the server, saves a good one', async () => {
    const calls = setup()
    const field = await screen.findByLabelText('Words per chunk')
    expect(field).toHaveValue(200)
    expect(screen.getByText(/English \(stemming/)).toBeInTheDocument()
    expect(screen.getByText('Never (default)')).toBeInTheDocument()
    expect(screen.getByTestId('kb-stale')).toHaveTextContent('Every completed document is indexed with the current chunk size.')
    const save = screen.getByRole('button', { name: 'Save Settings' })
    expect(save).toBeDisabled()

    await userEvent.clear(field)
    await userEvent.type(field, '20')
    await userEvent.click(save)
    expect(await screen.findByRole('alert')).toHaveTextContent('Chunk size must be a whole number of words from 50 to 1000.')
    expect(calls.filter((c) => c.key.startsWith('PUT'))).toHaveLength(0)

    await userEvent.clear(field)
    await userEvent.type(field, '999')
    await userEvent.click(save)
    expect(await screen.findByRole('alert')).toHaveTextContent('Refused by the server.')

    await userEvent.clear(field)
    await userEvent.type(field, '120')
    await userEvent.click(save)
    await waitFor(() => expect(screen.getByTestId('kb-stale')).toHaveTextContent('3 documents were indexed with another chunk size.'))
    expect(calls.filter((c) => c.key.startsWith('PUT')).at(-1)!.body).toEqual({ chunkWords: 120 })
    expect(screen.getByLabelText('Words per chunk')).toHaveValue(120)
    expect(screen.getByText(/by Alicia Admin/)).toBeInTheDocument()
  })

  it('re-indexes after confirmation, and not when cancelled', async () => {
    const calls = setup({ ...SETTINGS, staleDocuments: 1 })
    await userEvent.click(await screen.findByRole('button', { name: 'Re-index all documents' }))
    expect(screen.getByRole('dialog', { name: 'Re-index the knowledge base' })).toHaveTextContent('200-word chunks')
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(calls.filter((c) => c.key.startsWith('POST'))).toHaveLength(0)

    await userEvent.click(screen.getByRole('button', { name: 'Re-index all documents' }))
    await userEvent.click(screen.getByRole('button', { name: 'Re-index' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(calls.filter((c) => c.key.startsWith('POST'))).toHaveLength(1)
    expect(await screen.findByText('3 documents being read or indexed.')).toBeInTheDocument()
    expect(screen.getByTestId('kb-stale')).toHaveTextContent('Every completed document')
  })
})
