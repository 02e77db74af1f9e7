import { Link } from 'react-router'

import { paths } from '@/config/paths'
import { useClientId } from '@/hooks/use-client-id'

import { useClientDashboard } from '../api'
import { SummaryCards } from './summary-cards'

/** The client home's summary cards: the client's savings, live, with a link to the dashboard. */
export function ClientSummary() {
  const clientId = useClientId()
  const dashboard = useClientDashboard(clientId)
  if (!clientId) return null
  return (
    <section className="space-y-3">
      <div className="flex items-center justify-between">
        <h2 className="text-lg font-semibold text-slate-900">Your savings</h2>
        <Link to={paths.client.dashboard.getHref()} className="text-sm font-medium text-brand-700 hover:underline">
          Open the dashboard
        </Link>
      </div>
      {dashboard.isError ? (
        <p className="text-sm text-red-700">Error loading data</p>
      ) : (
        <SummaryCards data={dashboard.data} />
      )}
    </section>
  )
}
