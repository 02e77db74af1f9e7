import { Brain, RefreshCw, X } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { DataTable, dataTableColumns, type DataTableColumn } from '@/components/ui/data-table'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { formatConfidence, formatCount, formatDate } from '@/lib/format'
import { toast } from '@/lib/toast'

import { PAGE_SIZE, useTrainingPage, type Learning, type TrainingItem, type TrainingTab } from '../api'
import { STATUS_LABEL, confidenceBadge, isPending, predictedLabel, shortId } from '../utils/format'
import { ConfidenceBadge } from './confidence-badge'
import { ReviewPanel } from './review-panel'

const NO_ITEMS: TrainingItem[] = []
const LISTS: TrainingTab[] = ['pending', 'reviewed', 'all']
const REVIEW_PREFIX = 'review:'

const EMPTY: Record<TrainingTab, string> = {
  pending: 'No pending classifications to review',
  reviewed: 'No completed reviews yet',
  all: 'No classifications yet',
}

/**
 * Enhanced Classification Training (administrators, spec 2.10): each file's latest enhanced-AI
 * classification in three lists (Pending Review, Recently Reviewed: the newest 20, All) with
 * their counts, 10 per page, live; opening one adds a closable review tab.
 */
export function ClassificationTraining() {
  const [view, setView] = useState<string>('pending')
  const [listTab, setListTab] = useState<TrainingTab>('pending')
  const [pages, setPages] = useState<Record<TrainingTab, number>>({ pending: 1, reviewed: 1, all: 1 })
  const [open, setOpen] = useState<TrainingItem[]>([])
  const list = useTrainingPage(listTab, pages[listTab])
  const counts = list.data?.counts

  useEffect(() => {
    if (list.isError) toast.error('Error', 'Failed to fetch classifications')
  }, [list.isError])

  const onOpen = (item: TrainingItem) => {
    setOpen((o) => (o.some((x) => x.id === item.id) ? o : [...o, item]))
    setView(REVIEW_PREFIX + item.id)
  }
  const onClose = (id: string) => {
    setOpen((o) => o.filter((x) => x.id !== id))
    setView((v) => (v === REVIEW_PREFIX + id ? listTab : v))
  }
  const onView = (v: string) => {
    setView(v)
    if ((LISTS as string[]).includes(v)) setListTab(v as TrainingTab)
  }

  const columns = useMemo(() => trainingColumns(listTab, onOpen), [listTab])
  const label = (tab: TrainingTab) =>
    ({ pending: 'Pending Review', reviewed: 'Recently Reviewed', all: 'All' })[tab] + (counts ? ` (${counts[tab]})` : '')

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="flex items-center gap-2 text-2xl font-bold tracking-tight text-slate-900">
            <Brain className="size-6 text-brand-700" aria-hidden /> Enhanced Classification Training
          </h1>
          <p className="mt-1 text-sm text-slate-500">
            Review the levers the AI classified, correct them, and teach it: every decision counts in the next classifications.
          </p>
        </div>
        <Button variant="outline" onClick={() => void list.refetch()} disabled={list.isFetching}>
          <RefreshCw className={cn(list.isFetching && 'animate-spin')} /> Refresh
        </Button>
      </div>

      {list.data?.learning ? <LearningSummary learning={list.data.learning} /> : null}

      <Tabs value={view} onValueChange={onView}>
        <div className="flex flex-wrap items-center gap-3">
          <TabsList aria-label="Classification lists and reviews" className="h-auto flex-wrap">
            {LISTS.map((tab) => (
              <TabsTrigger key={tab} value={tab}>
                {label(tab)}
              </TabsTrigger>
            ))}
            {open.map((item) => (
              <div key={item.id} className="flex items-center rounded-md data-[active=true]:bg-white" data-active={view === REVIEW_PREFIX + item.id}>
                <TabsTrigger value={REVIEW_PREFIX + item.id} className="max-w-56 pr-1">
                  <span className="truncate">{item.fileName}</span>
                </TabsTrigger>
                <button
                  type="button"
                  className="mr-1 rounded p-0.5 text-slate-500 hover:bg-slate-200 hover:text-slate-900"
                  aria-label={`Close review of ${item.fileName}`}
                  onClick={() => onClose(item.id)}
                >
                  <X className="size-3.5" />
                </button>
              </div>
            ))}
          </TabsList>
          {open.length > 0 ? (
            <span className="rounded-full bg-brand-100 px-2.5 py-0.5 text-xs font-medium text-brand-800" data-testid="active-reviews">
              {open.length} active {open.length === 1 ? 'review' : 'reviews'}
            </span>
          ) : null}
        </div>

        {LISTS.map((tab) => (
          <TabsContent key={tab} value={tab}>
            {list.isError && listTab === tab ? (
              <Alert variant="destructive" className="items-center justify-between">
                <div>
                  <p className="font-medium">Failed to fetch classifications</p>
                  <p>{errorMessage(list.error, 'The classifications could not be loaded.')}</p>
                </div>
                <Button variant="outline" size="sm" onClick={() => void list.refetch()}>
                  Retry
                </Button>
              </Alert>
            ) : (
              <DataTable
                label={label(tab)}
                columns={columns}
                data={listTab === tab ? (list.data?.items ?? NO_ITEMS) : NO_ITEMS}
                getRowId={(i) => i.id}
                loading={list.isPlaceholderData}
                empty={list.isPending ? 'Loading classifications...' : EMPTY[tab]}
                pager="numbered"
                server={{
                  rowCount: list.data?.total ?? 0,
                  sorting: [],
                  onSortingChange: () => {},
                  pagination: { pageIndex: pages[tab] - 1, pageSize: PAGE_SIZE },
                  onPaginationChange: (p) => setPages((ps) => ({ ...ps, [tab]: p.pageIndex + 1 })),
                }}
              />
            )}
          </TabsContent>
        ))}
        {open.map((item) => (
          <TabsContent key={item.id} value={REVIEW_PREFIX + item.id} forceMount hidden={view !== REVIEW_PREFIX + item.id}>
            <ReviewPanel runId={item.id} fileName={item.fileName} onClose={() => onClose(item.id)} />
          </TabsContent>
        ))}
      </Tabs>
    </div>
  )
}

/** The classifier's measured accuracy against every review so far. */
function LearningSummary({ learning }: { learning: Learning }) {
  const trend = learning.earlierAccuracy !== null && learning.recentAccuracy !== null ? learning.recentAccuracy - learning.earlierAccuracy : null
  return (
    <Card role="region" aria-label="Classification accuracy">
      <CardHeader className="pb-2">
        <CardTitle className="text-base">Continuous Learning</CardTitle>
        <CardDescription>How often reviewers kept the lever the AI proposed, measured on every review.</CardDescription>
      </CardHeader>
      <CardContent>
        <dl className="grid grid-cols-2 gap-4 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-slate-500">Pattern accuracy</dt>
            <dd className="text-lg font-semibold text-slate-900">{formatConfidence(learning.accuracy)}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Reviewed classifications</dt>
            <dd className="text-lg font-semibold text-slate-900">
              {formatCount(learning.reviewed)} ({formatCount(learning.approved)} kept)
            </dd>
          </div>
          <div>
            <dt className="text-slate-500">Performance improvement</dt>
            <dd className="text-lg font-semibold text-slate-900">
              {trend === null ? 'From 10 reviews' : `${trend >= 0 ? '+' : '−'}${Math.abs(trend * 100).toFixed(1)} points`}
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  )
}

const col = dataTableColumns<TrainingItem>()

function trainingColumns(tab: TrainingTab, onOpen: (item: TrainingItem) => void): DataTableColumn<TrainingItem>[] {
  const columns: DataTableColumn<TrainingItem>[] = [
    col.display({
      id: 'id',
      header: 'ID',
      cell: ({ row }) => (
        <span className="font-mono text-xs text-slate-600" title={row.original.id}>
          {shortId(row.original.id)}
        </span>
      ),
    }),
    col.display({
      id: 'file',
      header: 'File',
      cell: ({ row }) => (
        <div className="min-w-0">
          <p className="truncate font-medium text-slate-900">{row.original.fileName}</p>
          <p className="text-xs text-slate-500">{row.original.clientName}</p>
        </div>
      ),
    }),
    col.display({ id: 'predicted', header: 'AI Predicted', cell: ({ row }) => predictedLabel(row.original) }),
    col.display({
      id: 'confidence',
      header: 'Confidence',
      cell: ({ row }) => <ConfidenceBadge tone={confidenceBadge(row.original.confidence)} value={row.original.confidence} />,
    }),
  ]
  if (tab !== 'pending') {
    columns.push(
      col.display({
        id: 'status',
        header: 'Status',
        cell: ({ row }) => (
          <span
            className={cn(
              'inline-flex rounded px-1.5 py-0.5 text-xs font-medium',
              row.original.status === 'approved'
                ? 'bg-emerald-100 text-emerald-800'
                : row.original.status === 'rejected'
                  ? 'bg-red-100 text-red-800'
                  : 'bg-amber-100 text-amber-800',
            )}
          >
            {STATUS_LABEL[row.original.status]}
          </span>
        ),
      }),
      col.display({ id: 'reviewed', header: 'Reviewed', cell: ({ row }) => formatDate(row.original.reviewedAt) }),
    )
  }
  columns.push(
    col.display({
      id: 'actions',
      header: 'Actions',
      cell: ({ row }) => (
        <Button variant={isPending(row.original) ? 'default' : 'outline'} size="sm" onClick={() => onOpen(row.original)} aria-label={`${isPending(row.original) ? 'Review' : 'View Details'} ${row.original.fileName}`}>
          {isPending(row.original) ? 'Review' : 'View Details'}
        </Button>
      ),
    }),
  )
  return columns
}
