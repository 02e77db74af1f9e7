import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { Toaster } from '@/components/ui/toaster'
import { useAuthStore } from '@/lib/auth-store'
import { json, makeUser, mockApi, noContent } from '@/testing/mock-api'

import { FirstLoginDialogs } from './first-login-dialogs'

function renderDialogs() {
  render(
    <>
      <FirstLoginDialogs />
      <Toaster />
    </>,
  )
}

afterEach(() => vi.unstubAllGlobals())

describe('first-login dialogs', () => {
  it('shows the terms first and then the password dialog', async () => {
    useAuthStore.setState({
      status: 'authenticated',
      user: makeUser({ requires_terms: true, requires_password_change: true }),
    })
    mockApi({
      'POST /api/auth/accept-terms': () =>
        json(200, makeUser({ requires_terms: false, requires_password_change: true })),
    })
    renderDialogs()
    expect(screen.getByRole('dialog', { name: 'Terms and Conditions' })).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }))
    expect(await screen.findByRole('dialog', { name: 'Password change required' })).toBeInTheDocument()
  })

  it('signs the user out when the terms are declined', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ requires_terms: true }) })
    mockApi({ 'POST /api/auth/logout': () => noContent() })
    renderDialogs()
    await userEvent.click(screen.getByRole('button', { name: 'Decline' }))
    expect(await screen.findByText('Terms declined')).toBeInTheDocument()
    expect(screen.getByText('You must accept the terms to use this application.')).toBeInTheDocument()
    expect(useAuthStore.getState().status).toBe('unauthenticated')
  })

  it('validates the password dialog with the spec messages', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ requires_password_change: true }) })
    const calls = mockApi({})
    renderDialogs()
    await userEvent.type(screen.getByLabelText('New password'), '12345')
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }))
    expect(await screen.findByText('Current password is required')).toBeInTheDocument()
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument()
    expect(screen.getByText('Please confirm your password')).toBeInTheDocument()

    // The one password policy: what reset refuses, this dialog refuses too.
    await userEvent.clear(screen.getByLabelText('New password'))
    await userEvent.type(screen.getByLabelText('New password'), 'abcdef')
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }))
    expect(await screen.findByText('Password must be at least 8 characters')).toBeInTheDocument()
    await userEvent.clear(screen.getByLabelText('New password'))
    await userEvent.type(screen.getByLabelText('New password'), 'abcdefgh1')
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }))
    expect(await screen.findByText('Password must contain at least one uppercase letter')).toBeInTheDocument()

    await userEvent.type(screen.getByLabelText('Current password'), 'old-pass')
    await userEvent.clear(screen.getByLabelText('New password'))
    await userEvent.type(screen.getByLabelText('New password'), 'New-Password-6')
    await userEvent.type(screen.getByLabelText('Confirm new password'), 'other-1')
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }))
    expect(await screen.findByText("Passwords don't match")).toBeInTheDocument()
    expect(calls).toHaveLength(0)
  })

  it('changes the password and closes', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ requires_password_change: true }) })
    mockApi({
      'POST /api/auth/change-password': () => noContent(),
      'GET /api/auth/me': () => json(200, makeUser({ requires_password_change: false })),
    })
    renderDialogs()
    await userEvent.type(screen.getByLabelText('Current password'), 'Demo-Password-1')
    await userEvent.type(screen.getByLabelText('New password'), 'New-Password-2')
    await userEvent.type(screen.getByLabelText('Confirm new password'), 'New-Password-2')
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }))
    expect(await screen.findByText('Password changed')).toBeInTheDocument()
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
  })

  it('shows a wrong current password next to the field', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ requires_password_change: true }) })
    mockApi({
      'POST /api/auth/change-password': () => json(400, { code: 'wrong_password', message: 'Current password is incorrect' }),
    })
    renderDialogs()
    await userEvent.type(screen.getByLabelText('Current password'), 'nope')
    await userEvent.type(screen.getByLabelText('New password'), 'New-Password-2')
    await userEvent.type(screen.getByLabelText('Confirm new password'), 'New-Password-2')
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }))
    expect(await screen.findByText('Current password is incorrect')).toBeInTheDocument()
  })

  it('signs the user out when the required change is cancelled', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ requires_password_change: true }) })
    mockApi({ 'POST /api/auth/logout': () => noContent() })
    renderDialogs()
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(await screen.findByText('Password change required', { selector: '[data-title]' })).toBeInTheDocument()
    expect(useAuthStore.getState().status).toBe('unauthenticated')
  })
})
