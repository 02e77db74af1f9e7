import { Download, FileDown } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { ApiError, errorMessage } from '@/lib/api-client'
import { formatDate, formatEur } from '@/lib/format'
import { toast } from '@/lib/toast'

import {
  checkDownload,
  originalHref,
  processedHref,
  useAdminFile,
  useEditFile,
  useFileHistory,
  useProcessWithLever,
  type AdminFile,
  type Lever,
} from '../api'
import { editorName, fieldLabel, formatDateTime, formatKb, historyValue, initials, isFinal, leverOption, runStateText, TO_BE_DETERMINED } from '../utils/format'

type Props = {
  /** The file opened (its row), or null when closed. */
  file: AdminFile | null
  levers: Lever[]
  onClose: () => void
}

/**
 * A file's details (spec 2.2, 2.3): the header with file, client and upload date; Details (file
 * information, lever assignment with 'Process File with New Lever', savings edits), Edit History
 * and Actions (downloads). The file is read again from the server and kept live by the screen.
 */
export function FileDetailsDialog({ file: row, levers, onClose }: Props) {
  const [tab, setTab] = useState('details')
  const fresh = useAdminFile(row?.id ?? null)
  const file = fresh.data ?? row
  return (
    <Dialog
      open={row !== null}
      onOpenChange={(open) => {
        if (!open) {
          setTab('details')
          onClose()
        }
      }}
    >
      <DialogContent className="max-w-3xl overflow-y-auto">
        {file && (
          <>
            <DialogHeader>
              <DialogTitle className="break-all">{file.name}</DialogTitle>
              <DialogDescription>
                {file.clientName} · Uploaded {formatDate(file.uploadedAt)}
              </DialogDescription>
            </DialogHeader>
            <Tabs value={tab} onValueChange={setTab}>
              <TabsList>
                <TabsTrigger value="details">Details</TabsTrigger>
                <TabsTrigger value="history">Edit History</TabsTrigger>
                <TabsTrigger value="actions">Actions</TabsTrigger>
              </TabsList>
              <TabsContent value="details" className="space-y-4">
                <DetailsTab key={file.id} file={file} levers={levers} />
              </TabsContent>
              <TabsContent value="history">
                <HistoryTab fileId={file.id} active={tab === 'history'} />
              </TabsContent>
              <TabsContent value="actions">
                <ActionsTab file={file} />
              </TabsContent>
            </Tabs>
          </>
        )}
      </DialogContent>
    </Dialog>
  )
}

function DetailsTab({ file, levers }: { file: AdminFile; levers: Lever[] }) {
  const ids = { lever: useId(), rwas: useId(), bps: useId() }
  const [leverId, setLeverId] = useState(file.leverId ?? '')
  const process = useProcessWithLever(file.id)
  const edit = useEditFile(file.id)
  const [rwas, setRwas] = useState(String(file.savingsRwas))
  const [bps, setBps] = useState(String(file.savingsBps))
  // The figures follow the server's (a save, a run's completion) unless being edited.
  const shown = useRef({ rwas: file.savingsRwas, bps: file.savingsBps })
  useEffect(() => {
    if (shown.current.rwas !== file.savingsRwas) setRwas(String(file.savingsRwas))
    if (shown.current.bps !== file.savingsBps) setBps(String(file.savingsBps))
    shown.current = { rwas: file.savingsRwas, bps: file.savingsBps }
  }, [file.savingsRwas, file.savingsBps])

  // The run started here: its end is announced.
  const started = useRef<string | null>(null)
  const run = file.latestRun
  useEffect(() => {
    if (!run || run.id !== started.current || !isFinal(run)) return
    started.current = null
    if (run.state === 'completed') toast.success('Processing Complete', `File processed successfully. Total savings: EUR ${formatEur(run.result?.savingsRwas ?? 0)}`)
    else if (run.state === 'failed') toast.error('Processing Failed', run.error ?? 'The file could not be processed.')
  }, [run])

  const running = run !== null && !isFinal(run)
  const validLever = levers.some((l) => l.id === leverId)
  const showProcess = validLever && (!file.processed || leverId !== (file.leverId ?? ''))
  const onProcess = () =>
    process.mutate(leverId, {
      onSuccess: (updated) => {
        started.current = updated.latestRun?.id ?? null
        toast.success('Processing started', `${file.name} is being processed with the new lever.`)
      },
      onError: (e) => toast.error('Error', errorMessage(e, 'Failed to update lever')),
    })

  const parsed = (text: string) => (text.trim() === '' ? NaN : Number(text))
  const saveSavings = (field: 'savingsRwas' | 'savingsBps', value: number) =>
    edit.mutate(
      { [field]: value, savingsBps: field === 'savingsBps' ? value : null, savingsRwas: field === 'savingsRwas' ? value : null, name: null },
      {
        onSuccess: () => toast.success('Savings updated', field === 'savingsRwas' ? 'Savings (RWAs) saved.' : 'Savings (BPS) saved.'),
        onError: (e) => toast.error('Error', errorMessage(e, 'Failed to update savings')),
      },
    )
  const rwasValue = parsed(rwas)
  const bpsValue = parsed(bps)
  const rwasChanged = Number.isFinite(rwasValue) && rwasValue >= 0 && rwasValue !== file.savingsRwas
  const bpsChanged = Number.isFinite(bpsValue) && bpsValue >= 0 && bpsValue !== file.savingsBps
  const live = runStateText(run)

  return (
    <>
      <Card>
        <CardHeader className="pb-3">
          <CardTitle className="text-base">File Information</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
            <dt className="text-slate-500">Name</dt>
            <dd className="break-all text-slate-900">{file.name}</dd>
            <dt className="text-slate-500">Type</dt>
            <dd className="text-slate-900 uppercase">{file.fileType}</dd>
            <dt className="text-slate-500">Size</dt>
            <dd className="text-slate-900">{formatKb(file.sizeBytes)}</dd>
          </dl>
        </CardContent>
      </Card>
      <Card>
        <CardHeader className="pb-3">
          <CardTitle className="text-base">Lever Assignment</CardTitle>
        </CardHeader>
        <CardContent className="space-y-3">
          <div className="space-y-1.5">
            <Label htmlFor={ids.lever}>Lever</Label>
            <Select id={ids.lever} value={leverId} onChange={(e) => setLeverId(e.target.value)} disabled={running || process.isPending}>
              <option value="">{TO_BE_DETERMINED}</option>
              {levers.map((l) => (
                <option key={l.id} value={l.id}>
                  {leverOption(l)}
                </option>
              ))}
            </Select>
          </div>
          {live && (
            <p className={live.tone === 'red' ? 'text-sm text-red-700' : 'text-sm text-brand-700'} aria-live="polite">
              {live.text}
            </p>
          )}
          {(showProcess || running || process.isPending) && (
            <Button onClick={onProcess} disabled={running || process.isPending || !showProcess}>
              {running || process.isPending ? (
                <>
                  <Spinner /> Processing...
                </>
              ) : (
                'Process File with New Lever'
              )}
            </Button>
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader className="pb-3">
          <CardTitle className="text-base">Savings Information</CardTitle>
        </CardHeader>
        <CardContent className="space-y-3">
          <div className="grid gap-3 sm:grid-cols-2">
            <div className="space-y-1.5">
              <Label htmlFor={ids.rwas}>Savings (RWAs)</Label>
              <div className="flex gap-2">
                <Input id={ids.rwas} type="number" step="0.01" min="0" value={rwas} onChange={(e) => setRwas(e.target.value)} />
                <Button variant="outline" disabled={!rwasChanged || edit.isPending} onClick={() => saveSavings('savingsRwas', rwasValue)} aria-label="Save Savings (RWAs)">
                  Save
                </Button>
              </div>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor={ids.bps}>Savings (BPS)</Label>
              <div className="flex gap-2">
                <Input id={ids.bps} type="number" step="0.01" min="0" value={bps} onChange={(e) => setBps(e.target.value)} />
                <Button variant="outline" disabled={!bpsChanged || edit.isPending} onClick={() => saveSavings('savingsBps', bpsValue)} aria-label="Save Savings (BPS)">
                  Save
                </Button>
              </div>
            </div>
          </div>
          <p className="text-sm text-slate-500">Changes to savings will be immediately reflected in client dashboards and reports.</p>
        </CardContent>
      </Card>
    </>
  )
}

function HistoryTab({ fileId, active }: { fileId: string; active: boolean }) {
  const history = useFileHistory(fileId, active)
  const failed = useRef(false)
  useEffect(() => {
    if (history.isError && !failed.current) toast.error('Error', 'Failed to load file history')
    failed.current = history.isError
  }, [history.isError])
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200">
      <table aria-label="Edit history" className="w-full border-collapse text-sm">
        <thead className="bg-slate-50 text-left text-slate-600">
          <tr className="border-b border-slate-200">
            {['Date/Time', 'User', 'Field', 'Old Value', 'New Value'].map((h) => (
              <th key={h} scope="col" className="px-3 py-2 font-medium whitespace-nowrap">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {history.isPending ? (
            [0, 1, 2].map((i) => (
              <tr key={i} data-testid="history-skeleton" className="border-b border-slate-100">
                {[0, 1, 2, 3, 4].map((j) => (
                  <td key={j} className="px-3 py-3">
                    <div className="h-4 animate-pulse rounded bg-slate-200" />
                  </td>
                ))}
              </tr>
            ))
          ) : history.isError ? (
            <tr>
              <td colSpan={5} className="px-3 py-8 text-center text-red-700">
                Failed to load file history
              </td>
            </tr>
          ) : history.data.length === 0 ? (
            <tr>
              <td colSpan={5} className="px-3 py-8 text-center text-slate-500">
                No edit history found for this file
              </td>
            </tr>
          ) : (
            history.data.map((e) => {
              const name = editorName(e)
              return (
                <tr key={e.id} className="border-b border-slate-100 last:border-0">
                  <td className="px-3 py-2 whitespace-nowrap">{formatDateTime(e.editedAt)}</td>
                  <td className="px-3 py-2">
                    <span className="flex items-center gap-2">
                      {e.editorAvatar ? (
                        <img src={e.editorAvatar} alt="" className="size-6 rounded-full" />
                      ) : (
                        <span aria-hidden className="flex size-6 items-center justify-center rounded-full bg-brand-100 text-xs font-medium text-brand-800">
                          {initials(name)}
                        </span>
                      )}
                      {name}
                    </span>
                  </td>
                  <td className="px-3 py-2">{fieldLabel(e.field)}</td>
                  <td className="px-3 py-2">{historyValue(e.oldValue, e.field)}</td>
                  <td className="px-3 py-2">{historyValue(e.newValue, e.field)}</td>
                </tr>
              )
            })
          )}
        </tbody>
      </table>
    </div>
  )
}

function ActionsTab({ file }: { file: AdminFile }) {
  const download = async (href: string, what: 'Original' | 'Processed') => {
    try {
      await checkDownload(href)
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) toast.error('Download Error', `${what} file is not available`)
      else toast.error('Download Failed', 'Could not download the file')
      return
    }
    window.location.assign(href)
  }
  return (
    <div className="flex flex-wrap gap-3">
      <Button variant="outline" onClick={() => void download(originalHref(file.id), 'Original')}>
        <Download /> Download Original File
      </Button>
      {file.processed && (
        <Button variant="outline" onClick={() => void download(processedHref(file.id), 'Processed')}>
          <FileDown /> Download Processed File
        </Button>
      )}
    </div>
  )
}
