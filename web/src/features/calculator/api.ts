import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

import type { AdminCalculation } from '@/api/types/AdminCalculation'
import type { Calculation } from '@/api/types/Calculation'
import type { CalculatorClient } from '@/api/types/CalculatorClient'
import type { NewScenario } from '@/api/types/NewScenario'
import type { SavedScenario } from '@/api/types/SavedScenario'
import type { ScenarioInputs } from '@/api/types/ScenarioInputs'
import type { ScenarioList } from '@/api/types/ScenarioList'

// The calculator's wire types are generated from the server (`web/src/api/types`).
export type { Calculation } from '@/api/types/Calculation'
export type { CalculatorClient } from '@/api/types/CalculatorClient'
export type { Currency } from '@/api/types/Currency'
export type { Optimisation } from '@/api/types/Optimisation'
export type { SavedScenario } from '@/api/types/SavedScenario'
export type { ScenarioInputs } from '@/api/types/ScenarioInputs'
export type { ScenarioList } from '@/api/types/ScenarioList'

/** Query keys of the calculators; every client-scoped key names the client. */
export const calculatorKeys = {
  all: ['calculator'] as const,
  admin: (req: AdminCalculation) => ['calculator', 'admin', req] as const,
  client: (clientId: string) => ['calculator', clientId] as const,
  figures: (clientId: string) => ['calculator', clientId, 'figures'] as const,
  calculation: (clientId: string, inputs: ScenarioInputs) => ['calculator', clientId, 'calculation', inputs] as const,
  scenarios: (clientId: string) => ['calculator', clientId, 'scenarios'] as const,
}

const enc = encodeURIComponent

export const calculateAdmin = (req: AdminCalculation) => api.post<Calculation>('/api/admin/calculator', req)
export const getCalculatorClient = (clientId: string) => api.get<CalculatorClient>(`/api/calculator?client_id=${enc(clientId)}`)
export const calculateForClient = (clientId: string, inputs: ScenarioInputs) => api.post<Calculation>(`/api/calculator?client_id=${enc(clientId)}`, inputs)
export const listScenarios = (clientId: string) => api.get<ScenarioList>(`/api/calculator/scenarios?client_id=${enc(clientId)}`)
export const saveScenario = (scenario: NewScenario) => api.post<SavedScenario>('/api/calculator/scenarios', scenario)
export const deleteScenario = (id: string) => apiRequest<void>(`/api/calculator/scenarios/${enc(id)}`, { method: 'DELETE' })

/** The realtime topic of a client's saved scenarios. */
export const scenariosTopic = (clientId: string) => `client:${clientId}:scenarios`
/** The realtime topic of a client's savings (the real portfolio of the comparison). */
export const savingsTopic = (clientId: string) => `client:${clientId}:savings`

/** The admin calculator's answer for the figures and inputs given (null: nothing to ask yet). */
export function useAdminCalculation(req: AdminCalculation | null) {
  return useQuery({
    queryKey: calculatorKeys.admin(req ?? ({} as AdminCalculation)),
    queryFn: () => calculateAdmin(req!),
    enabled: req !== null,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  })
}

/** A client's official figures and portfolio savings. */
export function useCalculatorClient(clientId: string | null) {
  return useQuery({
    queryKey: calculatorKeys.figures(clientId ?? ''),
    queryFn: () => getCalculatorClient(clientId!),
    enabled: clientId !== null,
    staleTime: 0,
  })
}

/** The client calculator's answer on the client's figures (null inputs: nothing to ask yet). */
export function useClientCalculation(clientId: string | null, inputs: ScenarioInputs | null) {
  return useQuery({
    queryKey: calculatorKeys.calculation(clientId ?? '', inputs ?? ({} as ScenarioInputs)),
    queryFn: () => calculateForClient(clientId!, inputs!),
    enabled: clientId !== null && inputs !== null,
    placeholderData: keepPreviousData,
    staleTime: 0,
  })
}

/** The client's saved scenarios beside its real portfolio. */
export function useScenarios(clientId: string | null) {
  return useQuery({
    queryKey: calculatorKeys.scenarios(clientId ?? ''),
    queryFn: () => listScenarios(clientId!),
    enabled: clientId !== null,
    staleTime: 0,
  })
}

/**
 * Keeps a client's calculator live: a scenario saved or deleted anywhere refetches the list, and
 * a change of the client's savings refetches its figures, the portfolio and the calculation.
 */
export function useLiveCalculator(clientId: string | null) {
  const queryClient = useQueryClient()
  const refetchScenarios = () => void queryClient.invalidateQueries({ queryKey: calculatorKeys.scenarios(clientId ?? '') })
  const refetchClient = () => void queryClient.invalidateQueries({ queryKey: calculatorKeys.client(clientId ?? '') })
  useRealtimeTopic(clientId ? scenariosTopic(clientId) : null, { onEvent: refetchScenarios, onResync: refetchScenarios })
  useRealtimeTopic(clientId ? savingsTopic(clientId) : null, { onEvent: refetchClient, onResync: refetchClient })
}

export function useSaveScenario(clientId: string | null) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (scenario: NewScenario) => saveScenario(scenario),
    onSettled: () => queryClient.invalidateQueries({ queryKey: calculatorKeys.scenarios(clientId ?? '') }),
  })
}

export function useDeleteScenario(clientId: string | null) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => deleteScenario(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: calculatorKeys.scenarios(clientId ?? '') }),
  })
}
