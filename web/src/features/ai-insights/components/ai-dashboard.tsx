import { AlertTriangle, Download, FileJson, FileSpreadsheet } from 'lucide-react'
import { useEffect, useId, useState } from 'react'
import { Link, useSearchParams } from 'react-router'

import { ClientSwitcher } from '@/components/client-switcher'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { paths } from '@/config/paths'
import { useClientId, withClient } from '@/hooks/use-client-id'
import { errorMessage } from '@/lib/api-client'
import { formatDate, formatEur, formatPercent } from '@/lib/format'
import { toast } from '@/lib/toast'

import {
  downloadExport,
  exportHref,
  useInsightDecision,
  useInsightDecisions,
  useInsightHistory,
  useInsightRun,
  useInsightRuns,
  useLiveInsights,
  type ExportFormat,
  type InsightDecision,
} from '../api'
import { decisionLabel, formatWeight, statusLabel } from '../utils/format'
import { ConfidenceBreakdown } from './confidence-breakdown'
import { DecisionTree } from './decision-tree'
import { HistoricalPatterns } from './historical-patterns'
import { TokenAnalysis } from './token-analysis'

/** The Search box waits this long after the last key before asking the server. */
export const SEARCH_DEBOUNCE_MS = 300

type Tab = 'tree' | 'tokens' | 'confidence' | 'history'

/** The value of `value` once it has not changed for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value)
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
  return v
}

function runLabel(r: { fileName: string; finishedAt: string | null; createdAt: string; leverName: string | null }): string {
  return `${r.fileName} — ${formatDate(r.finishedAt ?? r.createdAt)}${r.leverName ? ` — ${r.leverName}` : ''}`
}

function ChosenDecision({ d }: { d: InsightDecision }) {
  return (
    <div data-testid="chosen-decision" className="grid gap-3 rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm sm:grid-cols-2 lg:grid-cols-4">
      <div>
        <p className="text-xs text-slate-500">Exposure</p>
        <p className="font-semibold text-slate-900">{d.exposureId || `Row ${d.row}`}</p>
        <p className="text-slate-600">{d.counterparty || d.identifier}</p>
      </div>
      <div>
        <p className="text-xs text-slate-500">Original → proposed weight</p>
        <p className="font-semibold text-slate-900">
          {formatWeight(d.originalRw)} → {formatWeight(d.proposedRw)}
        </p>
        <p className="text-slate-600">{statusLabel(d.status)}</p>
      </div>
      <div>
        <p className="text-xs text-slate-500">Confidence</p>
        <p className="font-semibold text-slate-900">{formatPercent(d.confidence)}</p>
      </div>
      <div>
        <p className="text-xs text-slate-500">Regulatory basis</p>
        <p className="font-semibold text-slate-900">{d.regulatoryBasis || '—'}</p>
      </div>
      <p className="text-slate-700 sm:col-span-2 lg:col-span-4">
        <span className="text-xs text-slate-500">Reasoning: </span>
        {d.reasoning}
      </p>
    </div>
  )
}

/**
 * The AI explainability dashboard (spec 002, 'AI explainability dashboard'): for the client's own
 * processing runs, the engine's real decisions. Processing Run and Classification selects and a
 * Search the server runs over the run's decisions; tabs Decision Tree, Token Analysis, Confidence
 * Breakdown and Historical Patterns; Export Analysis as JSON or CSV. The choice lives in the URL
 * (`?run=…&row=…`), and the screen follows new runs and approvers' decisions live.
 */
export function AiDashboard() {
  const clientId = useClientId()
  const [params, setParams] = useSearchParams()
  const [tab, setTab] = useState<Tab>('tree')
  const [search, setSearch] = useState('')
  const q = useDebounced(search, SEARCH_DEBOUNCE_MS)
  const ids = { run: useId(), classification: useId(), search: useId() }
  useLiveInsights(clientId)

  const runs = useInsightRuns(clientId)
  const runList = runs.data ?? []
  const asked = params.get('run')
  // The URL's run when it is one of this client's, else the newest.
  const runId = (asked && runList.some((r) => r.id === asked) ? asked : runList[0]?.id) ?? null
  const rowParam = Number(params.get('row'))
  const row = runId !== null && asked === runId && Number.isInteger(rowParam) && rowParam > 0 ? rowParam : null

  const overview = useInsightRun(clientId, runId)
  const decisions = useInsightDecisions(clientId, runId, q)
  const detail = useInsightDecision(clientId, runId, row)
  const history = useInsightHistory(clientId, runId, row, tab === 'history')

  const choose = (next: { run?: string; row?: number | null }) => {
    const p = new URLSearchParams(params)
    const r = next.run ?? runId
    if (r) p.set('run', r)
    if (next.run !== undefined && next.run !== runId) p.delete('row')
    if (next.row !== undefined) {
      if (next.row === null) p.delete('row')
      else p.set('row', String(next.row))
    }
    setParams(p, { replace: true })
  }

  const onExport = async (format: ExportFormat) => {
    if (!clientId || !runId) return
    try {
      await downloadExport(exportHref(clientId, runId, row, format))
    } catch (e) {
      toast.error('Export failed', errorMessage(e, 'The analysis could not be exported.'))
    }
  }

  const items = decisions.data?.items ?? []
  const chosen = detail.data?.decision ?? items.find((d) => d.row === row) ?? null
  const chosenListed = row !== null && items.some((d) => d.row === row)
  const total = decisions.data?.total ?? 0

  if (!clientId) {
    return (
      <div className="mx-auto max-w-7xl">
        <Alert>Your account is not linked to a client yet: there are no processing runs to explain.</Alert>
      </div>
    )
  }

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold text-slate-900">AI Explainability Dashboard</h1>
          <p className="mt-1 text-sm text-slate-500">
            Why the engine proposed each risk weight in your processing runs: the rules it followed, the evidence it weighed and how confident it is.
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <ClientSwitcher />
          <DropdownMenu>
            <DropdownMenuTrigger asChild>
              <Button variant="outline" disabled={!runId}>
                <Download /> Export Analysis
              </Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent align="end">
              <DropdownMenuItem onSelect={() => void onExport('json')}>
                <FileJson /> JSON
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={() => void onExport('csv')}>
                <FileSpreadsheet /> CSV
              </DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
        </div>
      </div>

      <Card>
        <CardContent className="grid gap-4 pt-6 md:grid-cols-3">
          <div className="space-y-2">
            <Label htmlFor={ids.run}>Processing Run</Label>
            <Select
              id={ids.run}
              value={runId ?? ''}
              onChange={(e) => {
                setSearch('')
                choose({ run: e.target.value })
              }}
              disabled={runList.length === 0}
            >
              {runList.length === 0 ? <option value="">{runs.isPending ? 'Loading runs...' : 'No processing runs'}</option> : null}
              {runList.map((r) => (
                <option key={r.id} value={r.id}>
                  {runLabel(r)}
                </option>
              ))}
            </Select>
          </div>
          <div className="space-y-2">
            <Label htmlFor={ids.classification}>Classification</Label>
            <Select
              id={ids.classification}
              value={row === null ? '' : String(row)}
              onChange={(e) => choose({ row: e.target.value === '' ? null : Number(e.target.value) })}
              disabled={!runId || decisions.isError}
            >
              <option value="">{decisions.isPending && runId ? 'Loading decisions...' : 'Select a classification'}</option>
              {chosen && !chosenListed ? <option value={String(chosen.row)}>{decisionLabel(chosen)}</option> : null}
              {items.map((d) => (
                <option key={d.row} value={String(d.row)}>
                  {decisionLabel(d)}
                </option>
              ))}
            </Select>
            {decisions.data ? (
              <p className="text-xs text-slate-500" data-testid="decisions-count">
                {total > items.length
                  ? `Showing ${items.length} of ${total} decisions: search to narrow them.`
                  : q
                    ? `${total} ${total === 1 ? 'decision matches' : 'decisions match'} the search.`
                    : `${total} ${total === 1 ? 'decision' : 'decisions'}.`}
              </p>
            ) : null}
          </div>
          <div className="space-y-2">
            <Label htmlFor={ids.search}>Search</Label>
            <Input
              id={ids.search}
              type="search"
              placeholder="Exposure, counterparty, NIF or LEI, rule, article"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              disabled={!runId}
            />
          </div>
        </CardContent>
      </Card>

      {runs.isError ? <Alert variant="destructive">{errorMessage(runs.error, 'The processing runs could not be loaded.')}</Alert> : null}
      {runs.data && runList.length === 0 ? (
        <Alert variant="info">
          No processing runs with results yet.{' '}
          <Link className="font-medium underline" to={withClient(paths.client.fileProcessor.getHref(), clientId)}>
            Process a file
          </Link>{' '}
          to see how the engine decided.
        </Alert>
      ) : null}
      {overview.isError ? <Alert variant="destructive">{errorMessage(overview.error, 'The run could not be explained.')}</Alert> : null}
      {decisions.isError ? <Alert variant="destructive">{errorMessage(decisions.error, 'The decisions could not be loaded.')}</Alert> : null}

      {overview.data ? (
        <div className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-slate-600" data-testid="run-summary">
          <span>
            Lever <span className="font-medium text-slate-900">{overview.data.run.leverName ?? overview.data.lever.toUpperCase()}</span>
          </span>
          <span>
            Rule set <span className="font-medium text-slate-900">{overview.data.ruleSet}</span>
          </span>
          <span>
            Reporting date <span className="font-medium text-slate-900">{overview.data.reportingDate}</span>
          </span>
          <span>
            {overview.data.totals.rows} rows, {overview.data.totals.matched} matched, {overview.data.totals.changed} with a lower weight
          </span>
          <span>RWA saving {formatEur(overview.data.totals.rwaSaving)}</span>
        </div>
      ) : overview.isPending && runId ? (
        <p className="flex items-center gap-2 text-sm text-slate-500">
          <Spinner /> Reading the run's decisions...
        </p>
      ) : null}
      {overview.data?.consistency ? (
        <Alert>
          <AlertTriangle className="text-amber-600" />
          <span>{overview.data.consistency}</span>
        </Alert>
      ) : null}

      {chosen ? <ChosenDecision d={chosen} /> : null}

      <Tabs value={tab} onValueChange={(t) => setTab(t as Tab)}>
        <TabsList aria-label="Explanations">
          <TabsTrigger value="tree">Decision Tree</TabsTrigger>
          <TabsTrigger value="tokens">Token Analysis</TabsTrigger>
          <TabsTrigger value="confidence">Confidence Breakdown</TabsTrigger>
          <TabsTrigger value="history">Historical Patterns</TabsTrigger>
        </TabsList>
        <TabsContent value="tree">
          <Card>
            <CardHeader>
              <CardTitle>Decision Tree</CardTitle>
            </CardHeader>
            <CardContent>
              {row === null ? (
                <p className="text-sm text-slate-500">Select a classification to view the decision tree.</p>
              ) : detail.isPending ? (
                <p className="flex items-center gap-2 text-sm text-slate-500">
                  <Spinner /> Tracing the decision...
                </p>
              ) : detail.isError ? (
                <p className="text-sm text-red-700">{errorMessage(detail.error, 'The decision could not be traced.')}</p>
              ) : detail.data ? (
                <DecisionTree detail={detail.data} />
              ) : null}
            </CardContent>
          </Card>
        </TabsContent>
        <TabsContent value="tokens">
          <Card>
            <CardHeader>
              <CardTitle>Token Analysis</CardTitle>
            </CardHeader>
            <CardContent>
              {overview.data ? (
                <TokenAnalysis tokens={overview.data.tokens} />
              ) : (
                <p className="text-sm text-slate-500">{runId ? 'Loading...' : 'Select a processing run to view its token analysis.'}</p>
              )}
            </CardContent>
          </Card>
        </TabsContent>
        <TabsContent value="confidence">
          <Card>
            <CardHeader>
              <CardTitle>Confidence Breakdown</CardTitle>
            </CardHeader>
            <CardContent>
              {row === null ? (
                <p className="text-sm text-slate-500">Select a classification to view its confidence breakdown.</p>
              ) : detail.data ? (
                <ConfidenceBreakdown confidence={detail.data.confidence} />
              ) : detail.isError ? (
                <p className="text-sm text-red-700">{errorMessage(detail.error, 'The confidence could not be computed.')}</p>
              ) : (
                <p className="flex items-center gap-2 text-sm text-slate-500">
                  <Spinner /> Loading...
                </p>
              )}
            </CardContent>
          </Card>
        </TabsContent>
        <TabsContent value="history">
          <Card>
            <CardHeader>
              <CardTitle>Historical Patterns</CardTitle>
            </CardHeader>
            <CardContent>
              {row === null ? (
                <p className="text-sm text-slate-500">Select a classification to view its historical patterns.</p>
              ) : (
                <HistoricalPatterns history={history.data} isPending={history.isPending} error={history.error} />
              )}
            </CardContent>
          </Card>
        </TabsContent>
      </Tabs>
    </div>
  )
}
