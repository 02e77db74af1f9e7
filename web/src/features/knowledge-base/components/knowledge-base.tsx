import { useQueryClient } from '@tanstack/react-query'
import { BookOpen, FileStack, FolderTree, ListChecks, RefreshCw, Upload, UploadCloud } from 'lucide-react'
import { useState, type ReactNode } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { errorMessage } from '@/lib/api-client'
import { formatCount } from '@/lib/format'
import { toast } from '@/lib/toast'

import { knowledgeKeys, useDeleteDocument, useDocuments, useExtractLevers, useKnowledgeLive, useKnowledgeStats, type KnowledgeDocument, type LeverExtraction } from '../api'
import { DocumentRow } from './document-row'
import { LeverReview } from './lever-review'
import { RulesPanel } from './rules-panel'
import { SearchPanel } from './search-panel'
import { SettingsPanel } from './settings-panel'
import { UploadPanel } from './upload-panel'

/** Uploads shown in Overview's recent activity (spec: the last 5). */
export const RECENT_UPLOADS = 5

const NO_DOCUMENTS: KnowledgeDocument[] = []

type Tab = 'overview' | 'single' | 'bulk' | 'rules' | 'settings'

function StatCard({ label, value, hint, icon }: { label: string; value: ReactNode; hint?: string; icon: ReactNode }) {
  return (
    <Card className="p-5" role="group" aria-label={label}>
      <div className="flex items-center justify-between gap-2">
        <p className="text-sm font-medium text-slate-500">{label}</p>
        <span className="text-brand-700 [&_svg]:size-5">{icon}</span>
      </div>
      <p className="mt-2 text-3xl font-bold text-slate-900 tabular-nums" data-testid="kb-stat-value">
        {value}
      </p>
      {hint ? <p className="mt-1 text-xs text-slate-500">{hint}</p> : null}
    </Card>
  )
}

/**
 * AI Knowledge Base Management (spec 002 section 2): the stat cards, Refresh, and the tabs
 * Overview (recent uploads, quick actions, search), Single and Bulk lever doc upload, Rules (the
 * review of a document's extracted levers, then the saved rules), Settings (chunk size,
 * re-index). Live on `admin:knowledge`; the list is read every second while a document is
 * processing.
 */
export function KnowledgeBase() {
  useKnowledgeLive()
  const queryClient = useQueryClient()
  const stats = useKnowledgeStats()
  const documents = useDocuments()
  const remove = useDeleteDocument()
  const [tab, setTab] = useState<Tab>('overview')
  const [showAll, setShowAll] = useState(false)
  const [deleting, setDeleting] = useState<KnowledgeDocument | null>(null)
  const [refreshing, setRefreshing] = useState(false)
  const [extraction, setExtraction] = useState<LeverExtraction | null>(null)
  const extract = useExtractLevers()

  const onExtract = (doc: KnowledgeDocument) => {
    extract.mutate(doc.id, {
      onSuccess: (x) => {
        setExtraction(x)
        setTab('rules')
        if (x.levers.length === 0) toast.info('No levers found', `No articles with risk weights or conditions were recognised in ${doc.name}.`)
      },
      onError: (error) => toast.error('Extraction error', errorMessage(error, 'Rule extraction and update failed.')),
    })
  }
  const extracting = extract.isPending ? extract.variables : undefined

  const docs = documents.data ?? NO_DOCUMENTS
  const shown = showAll ? docs : docs.slice(0, RECENT_UPLOADS)
  const s = stats.data
  const figure = (n: number | undefined) => (s ? formatCount(n) : stats.isError ? '—' : <Spinner label="Loading" />)

  const refresh = async () => {
    setRefreshing(true)
    try {
      await queryClient.refetchQueries({ queryKey: knowledgeKeys.all, type: 'active' })
    } finally {
      setRefreshing(false)
    }
  }

  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">AI Knowledge Base Management</h1>
          <p className="mt-1 text-sm text-slate-500">Regulatory documents read, indexed and searchable for the optimization levers</p>
        </div>
        <Button variant="outline" onClick={() => void refresh()} disabled={refreshing}>
          <RefreshCw className={refreshing ? 'animate-spin' : undefined} /> Refresh
        </Button>
      </div>

      {stats.isError ? (
        <Alert variant="destructive" className="flex items-center justify-between gap-4">
          <span>{errorMessage(stats.error, 'Failed to load the knowledge base figures.')}</span>
          <Button variant="outline" size="sm" onClick={() => void stats.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label="Total Documents"
          value={figure(s?.totalDocuments)}
          hint={s ? `${formatCount(s.totalChunks)} ${s.totalChunks === 1 ? 'chunk' : 'chunks'} indexed` : undefined}
          icon={<BookOpen />}
        />
        <StatCard label="Total Rules" value={figure(s?.totalRules)} hint="Regulatory rules in force" icon={<ListChecks />} />
        <StatCard
          label="Total Uploads"
          value={figure(s?.totalUploads)}
          hint={s ? `${formatCount(s.processing)} processing · ${formatCount(s.failed)} failed` : undefined}
          icon={<FileStack />}
        />
        <StatCard label="Categories" value={figure(s?.categories)} hint="Assets, CET1 deductions, CRMT, Other" icon={<FolderTree />} />
      </div>

      <Tabs value={tab} onValueChange={(v) => setTab(v as Tab)}>
        <TabsList className="h-auto flex-wrap">
          <TabsTrigger value="overview">Overview</TabsTrigger>
          <TabsTrigger value="single">Single lever doc upload</TabsTrigger>
          <TabsTrigger value="bulk">Bulk lever doc upload</TabsTrigger>
          <TabsTrigger value="rules">Rules</TabsTrigger>
          <TabsTrigger value="settings">Settings</TabsTrigger>
        </TabsList>

        <TabsContent value="overview" className="space-y-6">
          <div className="grid gap-6 lg:grid-cols-3">
            <Card className="lg:col-span-2">
              <CardHeader>
                <CardTitle>Recent activity</CardTitle>
                <CardDescription>
                  {showAll ? 'Every upload, newest first' : `The last ${RECENT_UPLOADS} uploads`}
                  {docs.length > RECENT_UPLOADS ? (
                    <Button variant="link" size="sm" className="ml-2 h-auto p-0" onClick={() => setShowAll(!showAll)}>
                      {showAll ? `Show the last ${RECENT_UPLOADS}` : `Show all ${docs.length}`}
                    </Button>
                  ) : null}
                </CardDescription>
              </CardHeader>
              <CardContent>
                {documents.isPending ? (
                  <p className="flex items-center gap-2 text-sm text-slate-500">
                    <Spinner /> Loading documents…
                  </p>
                ) : documents.isError ? (
                  <Alert variant="destructive" className="flex items-center justify-between gap-4">
                    <span>{errorMessage(documents.error, 'Failed to load the documents.')}</span>
                    <Button variant="outline" size="sm" onClick={() => void documents.refetch()}>
                      Retry
                    </Button>
                  </Alert>
                ) : docs.length === 0 ? (
                  <p className="py-6 text-center text-sm text-slate-500">No documents uploaded yet.</p>
                ) : (
                  <ul className="space-y-2" aria-label="Recent uploads">
                    {shown.map((d) => (
                      <DocumentRow key={d.id} doc={d} onDelete={setDeleting} onExtract={onExtract} extracting={extracting} />
                    ))}
                  </ul>
                )}
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>Quick actions</CardTitle>
              </CardHeader>
              <CardContent className="flex flex-col gap-2">
                <Button variant="outline" className="justify-start" onClick={() => setTab('single')}>
                  <Upload /> Upload a lever document
                </Button>
                <Button variant="outline" className="justify-start" onClick={() => setTab('bulk')}>
                  <UploadCloud /> Upload several documents
                </Button>
              </CardContent>
            </Card>
          </div>
          <SearchPanel />
        </TabsContent>

        <TabsContent value="single">
          <UploadPanel multiple={false} documents={docs} documentsUpdatedAt={documents.dataUpdatedAt} onDelete={setDeleting} onExtract={onExtract} extracting={extracting} />
        </TabsContent>
        <TabsContent value="bulk">
          <UploadPanel multiple documents={docs} documentsUpdatedAt={documents.dataUpdatedAt} onDelete={setDeleting} onExtract={onExtract} extracting={extracting} />
        </TabsContent>
        <TabsContent value="rules" className="space-y-6">
          {extraction ? <LeverReview key={`${extraction.documentId}-${extract.submittedAt}`} extraction={extraction} onClose={() => setExtraction(null)} /> : null}
          <RulesPanel />
        </TabsContent>
        <TabsContent value="settings">
          <SettingsPanel />
        </TabsContent>

      </Tabs>

      <Dialog open={deleting !== null} onOpenChange={(open) => (open || remove.isPending ? undefined : setDeleting(null))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete document</DialogTitle>
            <DialogDescription>
              Delete <strong>{deleting?.name}</strong> from the knowledge base, with its indexed passages? This cannot be undone.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeleting(null)} disabled={remove.isPending}>
              Cancel
            </Button>
            <Button
              variant="destructive"
              disabled={remove.isPending}
              onClick={() => {
                const d = deleting
                if (!d) return
                remove.mutate(d.id, {
                  onSuccess: () => {
                    toast.success('Document deleted', `${d.name} was removed from the knowledge base.`)
                    setDeleting(null)
                  },
                  onError: (error) => {
                    toast.error('Delete failed', errorMessage(error, 'An unexpected error occurred.'))
                    setDeleting(null)
                  },
                })
              }}
            >
              {remove.isPending ? 'Deleting...' : 'Delete'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}
