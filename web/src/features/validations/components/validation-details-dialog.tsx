import { useId, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { formatBps, formatDate, formatEur } from '@/lib/format'

import { useValidation, type DecisionInput, type ValidationStatus } from '../api'
import { statusLabel, statusTone } from '../utils/format'
import { DecisionButton } from './decision-button'

type Props = {
  clientId: string
  validationId: string | null
  canApprove: boolean
  busy: boolean
  onClose: () => void
  /** Runs a decision; resolves true when it went through. */
  onDecide: (d: DecisionInput) => Promise<boolean>
  /** Asks for a rejection reason, then runs `then` with it. */
  onAskReason: (then: (reason: string) => void) => void
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="text-sm text-slate-900">{children}</dd>
    </div>
  )
}

/** The dialog's close delay after an action completes (spec 001 section 4). */
export const CLOSE_AFTER_MS = 1_000

/**
 * 'Validation Details': file info, processing info, the analysis written from the run's result,
 * the rejection reason, 'Change Validation Status' and Close, Reject, Approve. It follows the
 * validation live (another approver's decision shows at once and disables the buttons).
 */
export function ValidationDetailsDialog({ clientId, validationId, canApprove, busy, onClose, onDecide, onAskReason }: Props) {
  const detail = useValidation(clientId, validationId)
  const statusId = useId()
  const [newStatus, setNewStatus] = useState<ValidationStatus | ''>('')
  const v = detail.data?.validation
  const p = detail.data?.processing
  const pending = v?.status === 'pending'
  const changeable = canApprove && v !== undefined && v.status !== 'superseded'

  const afterAction = (ok: boolean) => {
    if (ok) setTimeout(onClose, CLOSE_AFTER_MS)
  }
  const approve = () => v && void onDecide({ kind: 'approve', id: v.id }).then(afterAction)
  const reject = () => v && onAskReason((reason) => void onDecide({ kind: 'reject', id: v.id, reason }).then(afterAction))
  const apply = () => {
    if (!v || newStatus === '' || newStatus === v.status) return
    const expectedStatus = v.status
    if (newStatus === 'rejected') {
      onAskReason((reason) => void onDecide({ kind: 'status', id: v.id, status: 'rejected', expectedStatus, reason }).then(afterAction))
    } else {
      void onDecide({ kind: 'status', id: v.id, status: newStatus, expectedStatus }).then(afterAction)
    }
  }

  return (
    <Dialog
      open={validationId !== null}
      onOpenChange={(o) => {
        if (!o) {
          setNewStatus('')
          onClose()
        }
      }}
    >
      <DialogContent className="max-w-2xl overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Validation Details</DialogTitle>
        </DialogHeader>
        {detail.isPending && validationId !== null ? (
          <p className="flex items-center gap-2 text-sm text-slate-600">
            <Spinner /> Loading validation…
          </p>
        ) : detail.isError ? (
          <Alert variant="destructive">{errorMessage(detail.error, 'The validation could not be loaded.')}</Alert>
        ) : v ? (
          <div className="space-y-5">
            <section aria-label="File Information" className="space-y-2">
              <h3 className="text-sm font-semibold text-slate-900">File Information</h3>
              <dl className="grid grid-cols-2 gap-3">
                <Field label="File Name">{v.fileName}</Field>
                <Field label="File Type">{v.fileType.toUpperCase()}</Field>
                <Field label="Uploaded">{formatDate(v.uploadedAt)}</Field>
                <Field label="Status">
                  <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${statusTone(v.status)}`}>{statusLabel(v.status)}</span>
                </Field>
                <Field label="Validated On">{v.validatedAt ? `${formatDate(v.validatedAt)}${v.validatedByName ? ` by ${v.validatedByName}` : ''}` : '—'}</Field>
              </dl>
            </section>
            <section aria-label="Processing Information" className="space-y-2">
              <h3 className="text-sm font-semibold text-slate-900">Processing Information</h3>
              <dl className="grid grid-cols-2 gap-3">
                <Field label="Lever">{v.leverName ?? 'To be determined'}</Field>
                <Field label="Category">{v.leverCategory ?? '—'}</Field>
                <Field label="RWAs Savings">{formatEur(v.savingsRwas)}</Field>
                <Field label="BPS Savings">{`${formatBps(v.savingsBps)} bps`}</Field>
                {p && <Field label="Processing mode">{p.mode === 'manual' ? 'Manual' : 'Enhanced AI'}</Field>}
                {p?.confidence != null && <Field label="Confidence">{`${(p.confidence * 100).toFixed(1)}%`}</Field>}
              </dl>
            </section>
            <section aria-label="AI Analysis" className="space-y-2">
              <h3 className="text-sm font-semibold text-slate-900">AI Analysis</h3>
              <p className="rounded-md bg-slate-50 p-3 text-sm whitespace-pre-line text-slate-700">{detail.data?.analysis ?? 'No AI analysis available for this file.'}</p>
            </section>
            {v.status === 'rejected' && v.rejectionReason && (
              <Alert variant="destructive">
                <p className="font-medium">Rejection Reason</p>
                <p className="whitespace-pre-line">{v.rejectionReason}</p>
              </Alert>
            )}
            {v.status === 'superseded' && <p className="text-sm text-slate-600">A newer result of this file was processed before this one was decided.</p>}
            {changeable && (
              <section aria-label="Change Validation Status" className="space-y-2 rounded-md border border-slate-200 p-3">
                <h3 className="text-sm font-semibold text-slate-900">Change Validation Status</h3>
                <div className="flex items-end gap-2">
                  <div className="flex-1 space-y-1.5">
                    <Label htmlFor={statusId}>New Status</Label>
                    <Select id={statusId} value={newStatus} onChange={(e) => setNewStatus(e.target.value as ValidationStatus | '')}>
                      <option value="">Select a status</option>
                      <option value="pending">Pending</option>
                      <option value="approved">Approved</option>
                      <option value="rejected">Rejected</option>
                    </Select>
                  </div>
                  <Button variant="outline" onClick={apply} disabled={busy || newStatus === '' || newStatus === v.status}>
                    Apply Change
                  </Button>
                </div>
              </section>
            )}
          </div>
        ) : null}
        <DialogFooter>
          <Button variant="outline" onClick={onClose}>
            Close
          </Button>
          <DecisionButton canApprove={canApprove} variant="destructive" onClick={reject} disabled={!pending || busy}>
            Reject
          </DecisionButton>
          <DecisionButton canApprove={canApprove} onClick={approve} disabled={!pending || busy}>
            Approve
          </DecisionButton>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
