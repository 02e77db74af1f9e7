import { useId, useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useAssignLever, useDeleteFiles, type BulkOutcome, type Lever } from '../api'
import { leverOption } from '../utils/format'

type Props = {
  open: boolean
  fileIds: string[]
  onOpenChange: (open: boolean) => void
  /** Called when at least one file was done: the selection clears and the dialog closes. */
  onDone: () => void
}

function firstError(outcome: BulkOutcome): string {
  return outcome.results.find((r) => !r.success)?.error ?? 'Unknown error'
}

/** The toast of a bulk delete (spec 8): all, some or none deleted. */
export function deletionToast(outcome: BulkOutcome) {
  if (outcome.failed === 0) toast.success('Files deleted successfully', `Successfully deleted ${outcome.succeeded} file(s)`)
  else if (outcome.succeeded > 0) toast.error('Partial deletion completed', `${outcome.succeeded} deleted successfully, ${outcome.failed} failed`)
  else toast.error('Deletion failed', `Failed to delete ${outcome.failed} files: ${firstError(outcome)}`)
}

/**
 * The bulk delete confirmation: 'You are about to permanently delete N file(s). This action cannot
 * be undone.' The selection clears and the dialog closes only if at least one file was deleted.
 */
export function BulkDeleteDialog({ open, fileIds, onOpenChange, onDone }: Props) {
  const remove = useDeleteFiles()
  const onConfirm = () =>
    remove.mutate(fileIds, {
      onSuccess: (outcome) => {
        deletionToast(outcome)
        if (outcome.succeeded > 0) onDone()
      },
      onError: (e) => toast.error('Deletion failed', `Failed to delete ${fileIds.length} files: ${errorMessage(e, 'The server could not be reached.')}`),
    })
  return (
    <Dialog open={open} onOpenChange={(o) => !remove.isPending && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Delete Files</DialogTitle>
          <DialogDescription>
            You are about to permanently delete {fileIds.length} file(s). This action cannot be undone.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={remove.isPending}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={onConfirm} disabled={remove.isPending || fileIds.length === 0}>
            {remove.isPending && <Spinner />} Delete Files
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

/**
 * Bulk lever assignment: the lever is set on each selected file and a processing run queued for
 * each ('Processed' follows when the run completes).
 */
export function AssignLeverDialog({ open, fileIds, onOpenChange, onDone, levers }: Props & { levers: Lever[] }) {
  const [leverId, setLeverId] = useState('')
  const assign = useAssignLever()
  const selectId = useId()
  const onConfirm = () =>
    assign.mutate(
      { fileIds, leverId },
      {
        onSuccess: (outcome) => {
          if (outcome.succeeded === 0) {
            toast.error('Assignment failed', firstError(outcome))
            return
          }
          toast.success(
            'Lever assigned',
            outcome.failed === 0
              ? `Lever assigned to ${outcome.succeeded} files`
              : `Lever assigned to ${outcome.succeeded} files; ${outcome.failed} failed: ${firstError(outcome)}`,
          )
          setLeverId('')
          onDone()
        },
        onError: (e) => toast.error('Assignment failed', errorMessage(e, 'The server could not be reached.')),
      },
    )
  return (
    <Dialog open={open} onOpenChange={(o) => !assign.isPending && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Assign Lever</DialogTitle>
          <DialogDescription>
            The lever is set on {fileIds.length} file(s) and each is processed again with it; a file shows as processed once its run completes.
          </DialogDescription>
        </DialogHeader>
        <div className="space-y-1.5">
          <Label htmlFor={selectId}>Lever</Label>
          <Select id={selectId} value={leverId} onChange={(e) => setLeverId(e.target.value)}>
            <option value="">Select a lever</option>
            {levers.map((l) => (
              <option key={l.id} value={l.id}>
                {leverOption(l)}
              </option>
            ))}
          </Select>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={assign.isPending}>
            Cancel
          </Button>
          <Button onClick={onConfirm} disabled={assign.isPending || leverId === '' || fileIds.length === 0}>
            {assign.isPending && <Spinner />} Assign Lever
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
