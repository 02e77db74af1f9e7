import { ArrowRight } from 'lucide-react'
import { useState } from 'react'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import { joinWaitlist, type WaitlistSource } from '../api'

export const INVALID_EMAIL_MESSAGE = 'Please enter a valid email address'
export const WAITLIST_FAILED_MESSAGE = 'Failed to join waitlist. Please try again later.'
export const UNEXPECTED_ERROR_MESSAGE = 'An unexpected error occurred. Please try again.'

// A simple address pattern; characters that would need escaping in markup are not accepted.
const EMAIL_PATTERN = /^[^\s@<>"'&]+@[^\s@<>"'&]+\.[^\s@<>"'&]+$/

// The landing page validates with react-hook-form's own rules, so it does not load zod.
type Values = { email: string }

type Props = {
  source: WaitlistSource
  /** Light text and button for dark backgrounds. */
  tone?: 'light' | 'dark'
  className?: string
}

/** The waitlist form: idle, then 'Joining...' while the request runs, then a toast with the result. */
export function WaitlistForm({ source, tone = 'light', className }: Props) {
  const [joining, setJoining] = useState(false)
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<Values>({ defaultValues: { email: '' } })

  const onSubmit = handleSubmit(async ({ email }) => {
    setJoining(true)
    try {
      const result = await joinWaitlist(email.trim(), source)
      if (result.success) {
        toast.success(result.message)
        reset()
      } else if (result.code === 'ALREADY_REGISTERED') {
        toast.info(result.message)
      } else if (result.code === 'RATE_LIMITED') {
        toast.error(result.message)
      } else {
        toast.error(WAITLIST_FAILED_MESSAGE)
      }
    } catch {
      toast.error(UNEXPECTED_ERROR_MESSAGE)
    } finally {
      setJoining(false)
    }
  })

  const errorId = `waitlist-${source}-error`
  return (
    <form onSubmit={onSubmit} noValidate className={cn('w-full max-w-md', className)} aria-label={`Join the waitlist (${source})`}>
      <div className="flex flex-col gap-2 sm:flex-row">
        <label htmlFor={`waitlist-${source}-email`} className="sr-only">
          Email address
        </label>
        <Input
          id={`waitlist-${source}-email`}
          type="email"
          autoComplete="email"
          placeholder="Enter your work email"
          aria-invalid={Boolean(errors.email)}
          aria-describedby={errors.email ? errorId : undefined}
          disabled={joining}
          className="h-11"
          {...register('email', {
            validate: (value) => EMAIL_PATTERN.test(value.trim()) || INVALID_EMAIL_MESSAGE,
          })}
        />
        <Button type="submit" size="lg" disabled={joining} variant={tone === 'dark' ? 'light' : 'default'}>
          {joining ? (
            <>
              <Spinner /> Joining...
            </>
          ) : (
            <>
              Join Waitlist <ArrowRight />
            </>
          )}
        </Button>
      </div>
      {errors.email ? (
        <p id={errorId} role="alert" className={cn('mt-2 text-sm', tone === 'dark' ? 'text-red-200' : 'text-red-600')}>
          {errors.email.message}
        </p>
      ) : null}
    </form>
  )
}
