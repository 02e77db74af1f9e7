import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { FaqSupport, QUESTIONS } from './faq-support'

function renderSupport() {
  useAuthStore.setState({ status: 'authenticated', user: makeUser() })
  mockApi({ 'GET /api/support': () => json(200, { email: 'help@bank-support.example', responseHours: 24 }) })
  renderRoutes([{ path: '/client/support', element: <FaqSupport /> }], '/client/support')
}

beforeEach(() => queryClient.clear())

describe('FaqSupport', () => {
  it('asks the five questions in a single-open accordion', async () => {
    const user = userEvent.setup()
    renderSupport()
    expect(screen.getByRole('heading', { name: 'FAQ & Support' })).toBeInTheDocument()
    const triggers = QUESTIONS.map((q) => screen.getByRole('button', { name: q.question }))
    expect(triggers).toHaveLength(5)
    expect(triggers.map((t) => t.textContent)).toEqual([
      'How do I add team members?',
      'How do I upload files to the Data Room?',
      'How do I change project settings?',
      'Where can I see our optimization metrics?',
      'How do I export reports?',
    ])
    for (const t of triggers) expect(t).toHaveAttribute('aria-expanded', 'false')
    await user.click(triggers[0]!)
    expect(triggers[0]).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getByText(/receives an e-mail invitation/)).toBeVisible()
    expect(screen.getByText(/added by an administrator in User Management with their name, e-mail and role/)).toBeVisible()
    await user.click(triggers[1]!)
    // One open at a time.
    expect(triggers[1]).toHaveAttribute('aria-expanded', 'true')
    expect(triggers[0]).toHaveAttribute('aria-expanded', 'false')
    expect(screen.queryByText(/receives an e-mail invitation/)).not.toBeInTheDocument()
    await user.click(triggers[1]!)
    expect(triggers[1]).toHaveAttribute('aria-expanded', 'false')
  })

  it('shows the configured support address with Copy and the response notes', async () => {
    const user = userEvent.setup()
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    renderSupport()
    expect(await screen.findByText('help@bank-support.example')).toHaveAttribute('href', 'mailto:help@bank-support.example')
    expect(screen.getByText('We typically respond within 24 hours on business days.')).toBeInTheDocument()
    expect(screen.getByText(/For urgent matters, please include/)).toHaveTextContent('For urgent matters, please include "Urgent" in the subject line.')
    await user.click(screen.getByRole('button', { name: 'Copy email address' }))
    expect(writeText).toHaveBeenCalledWith('help@bank-support.example')
    expect(await screen.findByText('Email copied to clipboard')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Copy email address' })).toHaveTextContent('Copied')
  })
})
