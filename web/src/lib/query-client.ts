import { QueryClient } from '@tanstack/react-query'

import { ApiError } from './api-client'

/** Cache timings from the specification. */
export const STALE_TIME = {
  /** Category and lever charts. */
  charts: 30_000,
  /** Client performance and lever tables. */
  performance: 3 * 60_000,
} as const

/** How long unused query data is kept. */
export const GC_TIME = 5 * 60_000

const MAX_RETRIES = 3

/** Retries failures that may heal (network, 5xx) up to 3 times; client errors are final. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= MAX_RETRIES) return false
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false
  return true
}

/** 1 s, 2 s, 4 s. */
export function retryDelay(attempt: number): number {
  return 1000 * 2 ** attempt
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: STALE_TIME.charts,
        gcTime: GC_TIME,
        retry: shouldRetry,
        retryDelay,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  })
}

/** The application's one query cache. Signing out clears it. */
export const queryClient = createQueryClient()
