import { Building2, CalendarCheck, KeyRound, Mail, ShieldCheck } from 'lucide-react'
import type { ReactNode } from 'react'

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { useAuthStore } from '@/lib/auth-store'
import { formatDate } from '@/lib/format'
import { roleLabel } from '@/lib/roles'

/**
 * The client user's landing screen: who they are, which client they work for and, in `summary`,
 * the client's savings (composed by the route from the client dashboard's cards).
 */
export function ClientHome({ summary }: { summary?: ReactNode }) {
  const user = useAuthStore((s) => s.user)
  if (!user) return null
  const fullName = `${user.name} ${user.last_name}`.trim()
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <div className="rounded-2xl bg-gradient-to-r from-brand-800 to-brand-600 p-8 text-white shadow-sm">
        <h1 className="text-3xl font-bold tracking-tight">Welcome, {fullName || user.email}</h1>
        <div className="mt-3 flex items-center gap-2 text-brand-100">
          <Building2 className="size-5" aria-hidden="true" />
          {user.client ? (
            <p className="text-lg">
              <span className="font-semibold text-white">{user.client.name}</span>
              <span className="mx-2" aria-hidden="true">
                ·
              </span>
              Capital Optimization Portal
            </p>
          ) : (
            <p className="text-lg font-semibold text-white">No Client</p>
          )}
        </div>
      </div>

      {summary}

      <Card>
        <CardHeader>
          <CardTitle>Your account</CardTitle>
          <CardDescription>The details your administrator set up for you.</CardDescription>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-5 sm:grid-cols-2">
            <Detail icon={<Mail />} label="Email" value={user.email} />
            <Detail icon={<ShieldCheck />} label="Role" value={roleLabel(user.role)} />
            <Detail icon={<Building2 />} label="Company" value={user.company ?? '—'} />
            <Detail icon={<CalendarCheck />} label="Terms accepted" value={formatDate(user.terms_accepted_at)} />
            <Detail icon={<KeyRound />} label="Password last changed" value={formatDate(user.password_changed_at)} />
          </dl>
        </CardContent>
      </Card>
    </div>
  )
}

function Detail({ icon, label, value }: { icon: ReactNode; label: string; value: string }) {
  return (
    <div className="flex gap-3">
      <span className="mt-0.5 text-slate-400 [&_svg]:size-4">{icon}</span>
      <div>
        <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</dt>
        <dd className="mt-0.5 text-sm text-slate-900">{value}</dd>
      </div>
    </div>
  )
}
