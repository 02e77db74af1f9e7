import { useId, useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Label } from '@/components/ui/label'
import { Textarea } from '@/components/ui/textarea'

/** The message of an empty reason (spec 001 section 5). */
export const REASON_REQUIRED = 'Please provide a reason for rejection'

type Props = {
  open: boolean
  busy: boolean
  onCancel: () => void
  /** Called with the trimmed reason. */
  onConfirm: (reason: string) => void
}

/** 'Rejection Reason': a required text; the error clears as soon as the user types. */
export function RejectionReasonDialog({ open, busy, onCancel, onConfirm }: Props) {
  const id = useId()
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string | null>(null)
  const close = () => {
    setReason('')
    setError(null)
    onCancel()
  }
  const confirm = () => {
    const trimmed = reason.trim()
    if (trimmed === '') {
      setError(REASON_REQUIRED)
      return
    }
    onConfirm(trimmed)
    setReason('')
    setError(null)
  }
  return (
    <Dialog open={open} onOpenChange={(o) => (o ? undefined : close())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Rejection Reason</DialogTitle>
          <DialogDescription>Say why these results are rejected; the team sees the reason in the validation history.</DialogDescription>
        </DialogHeader>
        <div className="space-y-1.5">
          <Label htmlFor={id}>Reason</Label>
          <Textarea
            id={id}
            value={reason}
            aria-invalid={error !== null}
            aria-describedby={error ? `${id}-error` : undefined}
            placeholder="Enter the reason for rejection..."
            onChange={(e) => {
              setReason(e.target.value)
              setError(null)
            }}
          />
          {error && (
            <p id={`${id}-error`} role="alert" className="text-sm text-red-600">
              {error}
            </p>
          )}
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={close}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={confirm} disabled={busy}>
            Reject
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
