import type { QueryClient, QueryKey } from '@tanstack/react-query'

/** What `onMutate` hands to `onError`: the cached data before the optimistic change. */
export type OptimisticSnapshot<TData> = { previous: TData | undefined }

/**
 * The one pattern for optimistic updates, spread into `useMutation` options:
 *
 * - `onMutate` cancels in-flight fetches of `queryKey` (so an older answer cannot overwrite the
 *   change), keeps a snapshot and applies `update` to the cached data at once;
 * - `onError` puts the snapshot back;
 * - `onSettled` refetches `queryKey`, so the cache always ends on the server's state (this also
 *   restores live changes that arrived between the snapshot and a rollback). It returns the
 *   refetch, so the mutation stays pending (and per-call `onError`/`onSuccess` wait) until the
 *   fresh data is in.
 *
 *     useMutation({ mutationFn, ...optimistic(queryClient, key, (data, vars) => next), onSuccess })
 *
 * A mutation adds its own `onSuccess` (merge the server's answer) and shows its own error toast
 * (`mutate(vars, { onError })`); the three callbacks above stay as they are.
 */
export function optimistic<TData, TVariables>(
  queryClient: QueryClient,
  queryKey: QueryKey,
  update: (data: TData, variables: TVariables) => TData,
  /** `refetch`: what to refetch when settled, when more than `queryKey` (a prefix of it, say). */
  options: { refetch?: QueryKey } = {},
) {
  return {
    onMutate: async (variables: TVariables): Promise<OptimisticSnapshot<TData>> => {
      await queryClient.cancelQueries({ queryKey })
      const previous = queryClient.getQueryData<TData>(queryKey)
      if (previous !== undefined) queryClient.setQueryData<TData>(queryKey, update(previous, variables))
      return { previous }
    },
    onError: (_error: unknown, _variables: TVariables, snapshot: OptimisticSnapshot<TData> | undefined) => {
      if (snapshot?.previous !== undefined) queryClient.setQueryData<TData>(queryKey, snapshot.previous)
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: options.refetch ?? queryKey }),
  }
}
