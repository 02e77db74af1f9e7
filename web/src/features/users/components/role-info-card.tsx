import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'

/** The role matrix (spec 000 section 6), as the Role Information card shows it. */
export const ROLE_MATRIX = [
  { role: 'Admin', rank: 3, rights: 'Full access: the admin back office (dashboard, clients, user management, levers), every client, role changes, user creation, editing, deletion and export.' },
  { role: 'Approver', rank: 2, rights: 'A user with validation rights: approves or rejects files in the Alerts of their clients. No user management, no admin dashboard.' },
  { role: 'User', rank: 1, rights: 'Works on their clients’ files, reports, task board and calculator. A user can also be one client’s approver (the client role).' },
  { role: 'Viewer', rank: 0, rights: 'Read-only access to their clients.' },
]

export function RoleInfoCard() {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Role Information</CardTitle>
        <CardDescription>What each role may do. Only administrators change roles.</CardDescription>
      </CardHeader>
      <CardContent>
        <dl className="grid gap-3 sm:grid-cols-2 xl:grid-cols-4">
          {ROLE_MATRIX.map((r) => (
            <div key={r.role} className="rounded-lg border border-slate-200 p-3">
              <dt className="flex items-center justify-between font-medium text-slate-900">
                {r.role} <span className="text-xs font-normal text-slate-500">rank {r.rank}</span>
              </dt>
              <dd className="mt-1 text-sm text-slate-600">{r.rights}</dd>
            </div>
          ))}
        </dl>
      </CardContent>
    </Card>
  )
}
