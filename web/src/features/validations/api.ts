import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'

import { api } from '@/lib/api-client'
import { optimistic } from '@/lib/optimistic'
import { useRealtimeTopic } from '@/lib/realtime'

import type { EventFrame } from '@/api/types/EventFrame'
import type { Validation } from '@/api/types/Validation'
import type { ValidationDetail } from '@/api/types/ValidationDetail'
import type { ValidationPage } from '@/api/types/ValidationPage'
import type { ValidationStatus } from '@/api/types/ValidationStatus'
import type { ValidationSummary } from '@/api/types/ValidationSummary'

// The wire types of validations are generated from the server (`web/src/api/types`).
export type { Validation } from '@/api/types/Validation'
export type { ValidationDetail } from '@/api/types/ValidationDetail'
export type { ValidationPage } from '@/api/types/ValidationPage'
export type { ValidationStatus } from '@/api/types/ValidationStatus'
export type { ValidationSummary } from '@/api/types/ValidationSummary'

/** The two lists of the Alerts tab. */
export type ValidationTab = 'pending' | 'history'

/** The Alerts filters as the list endpoint takes them (empty strings: no filter). */
export type ValidationFilters = {
  /** `all`, `pending`, `approved`, `rejected` (empty: all). */
  status: string
  /** `yyyy-mm-dd`, inclusive. */
  from: string
  to: string
  minRwas: string
  maxRwas: string
  minBps: string
  maxBps: string
}

export const NO_VALIDATION_FILTERS: ValidationFilters = { status: '', from: '', to: '', minRwas: '', maxRwas: '', minBps: '', maxBps: '' }

/** Rows per page of the Alerts lists. */
export const VALIDATIONS_PAGE_SIZE = 10

/** Query keys of the validations area; every client-scoped key names the client. */
export const validationKeys = {
  client: (clientId: string) => ['validations', clientId] as const,
  lists: (clientId: string) => ['validations', clientId, 'list'] as const,
  list: (clientId: string, tab: ValidationTab, filters: ValidationFilters, page: number) => ['validations', clientId, 'list', tab, filters, page] as const,
  summary: (clientId: string) => ['validations', clientId, 'summary'] as const,
  detail: (clientId: string, id: string) => ['validations', clientId, 'detail', id] as const,
}

const enc = encodeURIComponent

/** `path?client_id=…&…` with the non-empty parameters. */
function clientPath(path: string, clientId: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ client_id: clientId })
  for (const [key, value] of Object.entries(params)) if (value.trim() !== '') query.set(key, value.trim())
  return `${path}?${query.toString()}`
}

export const listValidations = (clientId: string, tab: ValidationTab, filters: ValidationFilters, page: number) =>
  api.get<ValidationPage>(
    clientPath('/api/validations', clientId, { ...filters, status: filters.status === 'all' ? '' : filters.status, tab, page: String(page), pageSize: String(VALIDATIONS_PAGE_SIZE) }),
  )
export const getValidationSummary = (clientId: string) => api.get<ValidationSummary>(clientPath('/api/validations/summary', clientId))
export const getValidation = (id: string) => api.get<ValidationDetail>(`/api/validations/${enc(id)}`)
export const approveValidation = (id: string) => api.post<Validation>(`/api/validations/${enc(id)}/approve`)
export const rejectValidation = (id: string, reason: string) => api.post<Validation>(`/api/validations/${enc(id)}/reject`, { reason })
export const changeValidationStatus = (id: string, status: ValidationStatus, expectedStatus: ValidationStatus, reason?: string) =>
  api.post<Validation>(`/api/validations/${enc(id)}/status`, reason === undefined ? { status, expectedStatus } : { status, expectedStatus, reason })

/** The realtime topic of a client's validations. */
export function validationsTopic(clientId: string): string {
  return `client:${clientId}:validations`
}

export function useValidations(clientId: string | null, tab: ValidationTab, filters: ValidationFilters, page: number) {
  return useQuery({
    queryKey: validationKeys.list(clientId ?? '', tab, filters, page),
    queryFn: () => listValidations(clientId!, tab, filters, page),
    enabled: clientId !== null,
    placeholderData: (previous) => previous,
  })
}

export function useValidationSummary(clientId: string | null) {
  return useQuery({ queryKey: validationKeys.summary(clientId ?? ''), queryFn: () => getValidationSummary(clientId!), enabled: clientId !== null })
}

export function useValidation(clientId: string, id: string | null) {
  return useQuery({ queryKey: validationKeys.detail(clientId, id ?? ''), queryFn: () => getValidation(id!), enabled: id !== null })
}

/** A validation event's payload, or null for other frames. */
export function validationChangeOf(frame: EventFrame) {
  return frame.type === 'validation.created' || frame.type === 'validation.updated' || frame.type === 'validation.deleted' ? frame.data : null
}

/**
 * Keeps the client's validation lists, summary and open details live: every decision, landing or
 * deletion (by anyone, in any tab) sets the pending count from the event at once and refetches
 * what is shown.
 */
export function useLiveValidations(clientId: string | null) {
  const client = useQueryClient()
  const refetch = () => void client.invalidateQueries({ queryKey: validationKeys.client(clientId ?? '') })
  useRealtimeTopic(clientId ? validationsTopic(clientId) : null, {
    onEvent: (frame) => {
      const change = validationChangeOf(frame)
      if (change && clientId) {
        client.setQueryData<ValidationSummary>(validationKeys.summary(clientId), (s) => (s ? { ...s, pendingValidations: change.pendingValidations } : s))
      }
      refetch()
    },
    onResync: refetch,
  })
}

/** What a decision does to a cached page: the item leaves the pending list (or gets its new status), the count drops, never below 0. */
export function applyDecision(page: ValidationPage, id: string, status: ValidationStatus, tab: ValidationTab): ValidationPage {
  const item = page.items.find((v) => v.id === id)
  if (!item) return page
  const leavesPending = item.status === 'pending' && status !== 'pending'
  const entersPending = item.status !== 'pending' && status === 'pending'
  const pendingValidations = Math.max(0, page.pendingValidations + (entersPending ? 1 : 0) - (leavesPending ? 1 : 0))
  if (tab === 'pending' && status !== 'pending') {
    return { ...page, items: page.items.filter((v) => v.id !== id), total: Math.max(0, page.total - 1), pendingValidations }
  }
  return { ...page, items: page.items.map((v) => (v.id === id ? { ...v, status } : v)), pendingValidations }
}

/** A decision on one validation. */
export type DecisionInput =
  | { kind: 'approve'; id: string }
  | { kind: 'reject'; id: string; reason: string }
  | { kind: 'status'; id: string; status: ValidationStatus; expectedStatus: ValidationStatus; reason?: string }

function targetOf(d: DecisionInput): ValidationStatus {
  return d.kind === 'approve' ? 'approved' : d.kind === 'reject' ? 'rejected' : d.status
}

function send(d: DecisionInput): Promise<Validation> {
  if (d.kind === 'approve') return approveValidation(d.id)
  if (d.kind === 'reject') return rejectValidation(d.id, d.reason)
  return changeValidationStatus(d.id, d.status, d.expectedStatus, d.reason)
}

function applyToSummary(client: QueryClient, clientId: string, before: ValidationStatus | undefined, to: ValidationStatus) {
  if (!before || before === to) return
  const delta = (to === 'pending' ? 1 : 0) - (before === 'pending' ? 1 : 0)
  client.setQueryData<ValidationSummary>(validationKeys.summary(clientId), (s) => (s ? { ...s, pendingValidations: Math.max(0, s.pendingValidations + delta) } : s))
}

/**
 * Decides a validation optimistically in the list shown (`listKey`): the item moves at once and
 * the count drops; on failure the list is put back and everything of the client's validations is
 * refetched to show the true state (another approver may have decided first).
 */
export function useDecideValidation(clientId: string, tab: ValidationTab, listKey: readonly unknown[]) {
  const client = useQueryClient()
  const base = optimistic<ValidationPage, DecisionInput>(client, listKey, (page, d) => applyDecision(page, d.id, targetOf(d), tab), {
    refetch: validationKeys.client(clientId),
  })
  return useMutation({
    mutationFn: send,
    onMutate: async (d: DecisionInput) => {
      const before = client.getQueryData<ValidationPage>(listKey)?.items.find((v) => v.id === d.id)?.status
      const summary = client.getQueryData<ValidationSummary>(validationKeys.summary(clientId))
      const snapshot = await base.onMutate(d)
      applyToSummary(client, clientId, before, targetOf(d))
      return { ...snapshot, summary }
    },
    onError: (error, d, snapshot) => {
      base.onError(error, d, snapshot)
      if (snapshot?.summary) client.setQueryData(validationKeys.summary(clientId), snapshot.summary)
    },
    onSettled: base.onSettled,
  })
}
