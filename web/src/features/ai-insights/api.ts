import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

import type { InsightDecisionDetail } from '@/api/types/InsightDecisionDetail'
import type { InsightDecisionPage } from '@/api/types/InsightDecisionPage'
import type { InsightHistory } from '@/api/types/InsightHistory'
import type { InsightRun } from '@/api/types/InsightRun'
import type { InsightRunOverview } from '@/api/types/InsightRunOverview'

// The wire types of the explainability screens are generated from the server (`web/src/api/types`).
export type { InsightCase } from '@/api/types/InsightCase'
export type { InsightConfidence } from '@/api/types/InsightConfidence'
export type { InsightDecision } from '@/api/types/InsightDecision'
export type { InsightDecisionDetail } from '@/api/types/InsightDecisionDetail'
export type { InsightDecisionPage } from '@/api/types/InsightDecisionPage'
export type { InsightFactor } from '@/api/types/InsightFactor'
export type { InsightHistory } from '@/api/types/InsightHistory'
export type { InsightRun } from '@/api/types/InsightRun'
export type { InsightRunOverview } from '@/api/types/InsightRunOverview'
export type { InsightToken } from '@/api/types/InsightToken'
export type { InsightTokens } from '@/api/types/InsightTokens'
export type { InsightTrace } from '@/api/types/InsightTrace'
export type { InsightTraceStep } from '@/api/types/InsightTraceStep'

/** Decisions offered by the Classification select at once (the server searches the rest). */
export const DECISIONS_PAGE_SIZE = 50

/** Export formats (PDF follows once reports can be exported). */
export type ExportFormat = 'json' | 'csv'

/** Query keys of the explainability screens; every key names the client. */
export const insightKeys = {
  client: (clientId: string) => ['insights', clientId] as const,
  runs: (clientId: string) => ['insights', clientId, 'runs'] as const,
  run: (clientId: string, runId: string) => ['insights', clientId, 'run', runId] as const,
  decisions: (clientId: string, runId: string, q: string) => ['insights', clientId, 'run', runId, 'decisions', q] as const,
  decision: (clientId: string, runId: string, row: number) => ['insights', clientId, 'run', runId, 'decision', row] as const,
  history: (clientId: string, runId: string, row: number) => ['insights', clientId, 'run', runId, 'history', row] as const,
}

const enc = encodeURIComponent

/** `path?client_id=…&…` with the non-empty parameters. */
function clientPath(path: string, clientId: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ client_id: clientId })
  for (const [key, value] of Object.entries(params)) if (value.trim() !== '') query.set(key, value.trim())
  return `${path}?${query.toString()}`
}

const runPath = (runId: string, rest = '') => `/api/insights/runs/${enc(runId)}${rest}`

export const listInsightRuns = (clientId: string) => api.get<InsightRun[]>(clientPath('/api/insights/runs', clientId))
export const getInsightRun = (clientId: string, runId: string) => api.get<InsightRunOverview>(clientPath(runPath(runId), clientId))
export const listInsightDecisions = (clientId: string, runId: string, q: string) =>
  api.get<InsightDecisionPage>(clientPath(runPath(runId, '/decisions'), clientId, { q, pageSize: String(DECISIONS_PAGE_SIZE) }))
export const getInsightDecision = (clientId: string, runId: string, row: number) =>
  api.get<InsightDecisionDetail>(clientPath(runPath(runId, `/decisions/${row}`), clientId))
export const getInsightHistory = (clientId: string, runId: string, row: number) =>
  api.get<InsightHistory>(clientPath(runPath(runId, `/decisions/${row}/history`), clientId))

/** The address of the analysis export (an attachment). */
export function exportHref(clientId: string, runId: string, row: number | null, format: ExportFormat): string {
  return clientPath(runPath(runId, '/export'), clientId, { format, row: row === null ? '' : String(row) })
}

/**
 * Downloads the analysis: a HEAD request first (the session refreshed if need be, a refusal
 * reported), then the browser downloads the attachment itself.
 */
export async function downloadExport(href: string): Promise<void> {
  await apiRequest(href, { method: 'HEAD' })
  window.location.assign(href)
}

export function useInsightRuns(clientId: string | null) {
  return useQuery({ queryKey: insightKeys.runs(clientId ?? ''), queryFn: () => listInsightRuns(clientId!), enabled: clientId !== null })
}

export function useInsightRun(clientId: string | null, runId: string | null) {
  return useQuery({
    queryKey: insightKeys.run(clientId ?? '', runId ?? ''),
    queryFn: () => getInsightRun(clientId!, runId!),
    enabled: clientId !== null && runId !== null,
  })
}

export function useInsightDecisions(clientId: string | null, runId: string | null, q: string) {
  return useQuery({
    queryKey: insightKeys.decisions(clientId ?? '', runId ?? '', q),
    queryFn: () => listInsightDecisions(clientId!, runId!, q),
    enabled: clientId !== null && runId !== null,
    placeholderData: keepPreviousData,
  })
}

export function useInsightDecision(clientId: string | null, runId: string | null, row: number | null) {
  return useQuery({
    queryKey: insightKeys.decision(clientId ?? '', runId ?? '', row ?? 0),
    queryFn: () => getInsightDecision(clientId!, runId!, row!),
    enabled: clientId !== null && runId !== null && row !== null,
  })
}

export function useInsightHistory(clientId: string | null, runId: string | null, row: number | null, enabled: boolean) {
  return useQuery({
    queryKey: insightKeys.history(clientId ?? '', runId ?? '', row ?? 0),
    queryFn: () => getInsightHistory(clientId!, runId!, row!),
    enabled: enabled && clientId !== null && runId !== null && row !== null,
  })
}

/**
 * Keeps the screen live: a run that lands (the client's files topic) refreshes the run list, and
 * a validation decided by an approver (the client's validations topic) refreshes the confidence
 * and the historical outcomes shown.
 */
export function useLiveInsights(clientId: string | null) {
  const client = useQueryClient()
  const runs = () => void client.invalidateQueries({ queryKey: insightKeys.runs(clientId ?? '') })
  const all = () => void client.invalidateQueries({ queryKey: insightKeys.client(clientId ?? '') })
  useRealtimeTopic(clientId ? `client:${clientId}:files` : null, { onEvent: runs, onResync: runs })
  useRealtimeTopic(clientId ? `client:${clientId}:validations` : null, { onEvent: all, onResync: all })
}
