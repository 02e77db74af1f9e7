import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { Toaster } from '@/components/ui/toaster'
import { json, mockApi, networkError } from '@/testing/mock-api'

import { WaitlistForm } from './waitlist-form'

type Reply = { status: number; body: unknown } | 'network error'

function mockWaitlist(reply: Reply, gate?: Promise<void>) {
  return mockApi({
    'POST /api/waitlist': async () => {
      await gate
      return reply === 'network error' ? networkError() : json(reply.status, reply.body)
    },
  })
}

function renderForm(source: 'hero' | 'cta' = 'hero') {
  render(
    <>
      <WaitlistForm source={source} />
      <Toaster />
    </>,
  )
  return {
    input: screen.getByRole('textbox', { name: 'Email address' }),
    button: () => screen.getByRole('button', { name: /join waitlist|joining/i }),
  }
}

describe('WaitlistForm', () => {
  it('rejects an invalid address without calling the server', async () => {
    const calls = mockWaitlist({ status: 200, body: {} })
    const { input, button } = renderForm()
    await userEvent.type(input, 'not-an-email')
    await userEvent.click(button())
    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument()
    expect(input).toHaveAttribute('aria-invalid', 'true')
    expect(calls).toHaveLength(0)
  })

  it('shows Joining... while the request runs, then the success toast, and clears the field', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const calls = mockWaitlist({ status: 200, body: { success: true, message: 'Welcome aboard!', code: 'OK' } }, gate)
    const { input, button } = renderForm('cta')
    await userEvent.type(input, '  ana@bank.example ')
    await userEvent.click(button())

    expect(button()).toHaveTextContent('Joining...')
    expect(button()).toBeDisabled()
    release()

    expect(await screen.findByText('Welcome aboard!')).toBeInTheDocument()
    await waitFor(() => expect(button()).toHaveTextContent('Join Waitlist'))
    expect(input).toHaveValue('')
    expect(calls.map((c) => c.url)).toEqual(['/api/waitlist'])
    expect(calls[0]!.body).toEqual({ email: 'ana@bank.example', name: null, source: 'cta' })
  })

  it('shows the server message for an address already registered', async () => {
    mockWaitlist({ status: 200, body: { success: false, message: 'You are already on the list', code: 'ALREADY_REGISTERED' } })
    const { input, button } = renderForm()
    await userEvent.type(input, 'ana@bank.example')
    await userEvent.click(button())
    expect(await screen.findByText('You are already on the list')).toBeInTheDocument()
    expect(input).toHaveValue('ana@bank.example')
  })

  it('reads the body of a 429', async () => {
    mockWaitlist({ status: 429, body: { success: false, message: 'Too many sign-ups, wait a minute', code: 'RATE_LIMITED' } })
    const { input, button } = renderForm()
    await userEvent.type(input, 'ana@bank.example')
    await userEvent.click(button())
    expect(await screen.findByText('Too many sign-ups, wait a minute')).toBeInTheDocument()
  })

  it('shows the generic failure for other codes', async () => {
    mockWaitlist({ status: 422, body: { success: false, message: 'Invalid email', code: 'INVALID_EMAIL' } })
    const { input, button } = renderForm()
    await userEvent.type(input, 'ana@bank.example')
    await userEvent.click(button())
    expect(await screen.findByText('Failed to join waitlist. Please try again later.')).toBeInTheDocument()
  })

  it('shows the unexpected-error message when the server cannot be reached', async () => {
    mockWaitlist('network error')
    const { input, button } = renderForm()
    await userEvent.type(input, 'ana@bank.example')
    await userEvent.click(button())
    expect(await screen.findByText('An unexpected error occurred. Please try again.')).toBeInTheDocument()
  })
})
