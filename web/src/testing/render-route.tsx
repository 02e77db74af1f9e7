import { QueryClientProvider } from '@tanstack/react-query'
import { render } from '@testing-library/react'
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router'

import { Toaster } from '@/components/ui/toaster'
import { queryClient } from '@/lib/query-client'

/** Renders a route table in a memory router at `path`, with the query cache and the toaster. */
export function renderRoutes(routes: RouteObject[], path: string | { pathname: string; state?: unknown }) {
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: 0, gcTime: 0 } })
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  const view = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
      <Toaster />
    </QueryClientProvider>,
  )
  return { router, ...view }
}
