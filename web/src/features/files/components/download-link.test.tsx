import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { Toaster } from '@/components/ui/toaster'
import { json, mockApi } from '@/testing/mock-api'

import { DownloadLink } from './download-link'

function renderLink() {
  render(
    <>
      <DownloadLink href="/api/files/f-1/processed">Download File</DownloadLink>
      <Toaster />
    </>,
  )
}

afterEach(() => vi.unstubAllGlobals())

describe('DownloadLink', () => {
  it('downloads a file that is there', async () => {
    const assign = vi.fn()
    vi.stubGlobal('location', { ...window.location, assign })
    const calls = mockApi({ 'HEAD /api/files/:id/processed': () => new Response(null, { status: 200 }) })
    renderLink()
    await userEvent.click(screen.getByRole('link', { name: 'Download File' }))
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/api/files/f-1/processed'))
    expect(calls.map((c) => c.key)).toEqual(['HEAD /api/files/:id/processed'])
  })

  it("says 'Download Failed' when the file cannot be had, and does not leave the page", async () => {
    const assign = vi.fn()
    vi.stubGlobal('location', { ...window.location, assign })
    mockApi({ 'HEAD /api/files/:id/processed': () => json(404) })
    renderLink()
    await userEvent.click(screen.getByRole('link', { name: 'Download File' }))
    expect(await screen.findByText('Download Failed')).toBeInTheDocument()
    expect(screen.getByText('Could not download the file. Please try again later.')).toBeInTheDocument()
    expect(assign).not.toHaveBeenCalled()
  })
})
