import { ChevronDown, Download, Link2, Mail, MoreHorizontal, Pencil, Plus, RefreshCw, Search, Trash2 } from 'lucide-react'
import { useEffect, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { pageWindow } from '@/components/ui/data-table'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { ApiError } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { useClientList } from '@/lib/clients-api'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import { downloadUsersCsv, useLiveUsers, useSetRole, useUsers, type ManagedUser, type Role, type RoleFilter } from '../api'
import { ROLE_LABELS, ROLES, USER_PAGE_SIZES, clientsText, initials, rangeText } from '../utils/users'
import { RoleInfoCard } from './role-info-card'
import { UserClientCard } from './user-client-card'
import { AssignToClientDialog, CreateUserDialog, EditUserDialog, EmailAllDialog, RemoveUserDialog } from './user-dialogs'

/** The role filter's choices (spec 000 section 2.7). */
export const ROLE_FILTERS: { value: RoleFilter; label: string }[] = [
  { value: 'all', label: 'All Roles' },
  { value: 'admin', label: 'Admins' },
  { value: 'approver', label: 'Approvers' },
  { value: 'user', label: 'Users' },
  { value: 'viewer', label: 'Viewers' },
]

export const SEARCH_DEBOUNCE_MS = 300

/**
 * User Management (spec 000 section 2.7): the Role Information card, Create User, the users
 * searched, filtered and paged by the server with the inline role selector, Details and delete,
 * the Actions menu (Export Users, Refresh Users, Email All, Assign to Client) and the
 * User-Client Management card; live as any administrator changes users.
 */
export function UserManagement() {
  const me = useAuthStore((s) => s.user)
  const [search, setSearch] = useState('')
  const [q, setQ] = useState('')
  const [role, setRoleFilter] = useState<RoleFilter>('all')
  const [page, setPage] = useState(1)
  const [pageSize, setPageSize] = useState<number>(10)
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [editing, setEditing] = useState<ManagedUser | null>(null)
  const [removing, setRemoving] = useState<ManagedUser | null>(null)
  const [dialog, setDialog] = useState<'create' | 'email' | 'assign' | null>(null)
  const clients = useClientList(true)
  // A page past the end (users removed meanwhile) shows the last one.
  const [knownTotal, setKnownTotal] = useState<number | null>(null)
  const lastPage = knownTotal === null ? Infinity : Math.max(1, Math.ceil(knownTotal / pageSize))
  const currentPage = Math.min(page, lastPage)
  const users = useUsers({ q, role, page: currentPage, pageSize })
  if (users.data && !users.isPlaceholderData && knownTotal !== users.data.total) setKnownTotal(users.data.total)
  const setRole = useSetRole()
  useLiveUsers()

  // Search, role filter and page size start again from the first page.
  useEffect(() => {
    const timer = setTimeout(() => {
      setQ((current) => {
        if (current !== search.trim()) setPage(1)
        return search.trim()
      })
    }, SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [search])

  const failed = users.isError
  useEffect(() => {
    if (failed) toast.error('Error fetching users', 'There was a problem loading the user list. Please try again.')
  }, [failed])

  const data = users.data
  const rows = data?.items ?? []
  const total = data?.total ?? 0
  const pageCount = Math.max(1, Math.ceil(total / pageSize))

  const onRole = (u: ManagedUser, next: Role) =>
    setRole.mutate(
      { id: u.id, role: next },
      {
        onSuccess: () => toast.success('Role updated', `${u.email} is now ${ROLE_LABELS[next].toLowerCase()}.`),
        onError: (error) => toast.error('Role update failed', error instanceof ApiError && error.status === 422 ? error.message : 'Could not update user role'),
      },
    )

  const onExport = async () => {
    try {
      const blob = await downloadUsersCsv(q, role)
      const url = URL.createObjectURL(blob)
      const a = document.createElement('a')
      a.href = url
      a.download = 'users.csv'
      a.click()
      URL.revokeObjectURL(url)
      toast.success('Export successful', `${total} user(s) exported to CSV.`)
    } catch {
      toast.error('Export failed', 'There was a problem exporting users to CSV.')
    }
  }

  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s)
      if (n.has(id)) n.delete(id)
      else n.add(id)
      return n
    })

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">User Management</h1>
          <p className="mt-1 text-sm text-slate-500">Accounts, roles and client access.</p>
        </div>
        <Button onClick={() => setDialog('create')}>
          <Plus /> Create User
        </Button>
      </div>

      <RoleInfoCard />

      <Card>
        <CardHeader className="flex-row flex-wrap items-center justify-between gap-3">
          <CardTitle className="flex items-center gap-2">
            Users <span className="rounded-full bg-brand-100 px-2 py-0.5 text-xs font-medium text-brand-800" aria-label="Total users">{total}</span>
          </CardTitle>
          <DropdownMenu>
            <DropdownMenuTrigger asChild>
              <Button variant="outline">
                <MoreHorizontal /> Actions <ChevronDown />
              </Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent align="end">
              <DropdownMenuItem onSelect={() => void onExport()}>
                <Download /> Export Users
              </DropdownMenuItem>
              <DropdownMenuItem
                onSelect={() => {
                  toast.info('Refreshing data')
                  void users.refetch()
                }}
              >
                <RefreshCw /> Refresh Users
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={() => setDialog('email')}>
                <Mail /> Email All
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={() => setDialog('assign')} disabled={selected.size === 0}>
                <Link2 /> Assign to Client ({selected.size})
              </DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
        </CardHeader>
        <CardContent className="space-y-4">
          <div className="flex flex-wrap items-center gap-3">
            <div className="relative min-w-64 flex-1">
              <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
              <Input className="pl-9" placeholder="Search by name, email or company..." aria-label="Search users" value={search} onChange={(e) => setSearch(e.target.value)} />
            </div>
            <Select
              aria-label="Role filter"
              className="w-44"
              value={role}
              onChange={(e) => {
                setRoleFilter(e.target.value as RoleFilter)
                setPage(1)
              }}
            >
              {ROLE_FILTERS.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </Select>
          </div>

          {users.isError ? (
            <Alert variant="destructive" className="items-center justify-between">
              <div>
                <p className="font-medium">Error fetching users</p>
                <p>There was a problem loading the user list. Please try again.</p>
              </div>
              <Button variant="outline" size="sm" onClick={() => void users.refetch()}>
                <RefreshCw /> Try Again
              </Button>
            </Alert>
          ) : users.isPending ? (
            <div className="flex justify-center py-10">
              <Spinner label="Loading users" />
            </div>
          ) : (
            <div className={cn('overflow-x-auto rounded-lg border border-slate-200', users.isPlaceholderData && 'opacity-60')}>
              <table className="w-full text-left text-sm" aria-label="Users">
                <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-500 uppercase">
                  <tr>
                    <th className="w-10 px-3 py-3">
                      <span className="sr-only">Select</span>
                    </th>
                    <th className="px-3 py-3">User</th>
                    <th className="px-3 py-3">Role</th>
                    <th className="px-3 py-3">Clients</th>
                    <th className="px-3 py-3 text-right">Actions</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {rows.length === 0 ? (
                    <tr>
                      <td colSpan={5} className="px-3 py-10 text-center text-slate-500">
                        No users found.
                      </td>
                    </tr>
                  ) : (
                    rows.map((u) => (
                      <tr key={u.id} data-testid={`user-row-${u.email}`}>
                        <td className="px-3 py-3">
                          <input type="checkbox" className="size-4 accent-brand-700" aria-label={`Select ${u.email}`} checked={selected.has(u.id)} onChange={() => toggle(u.id)} />
                        </td>
                        <td className="px-3 py-3">
                          <div className="flex items-center gap-3">
                            {u.avatar ? (
                              <img src={u.avatar} alt="" className="size-9 rounded-full object-cover" />
                            ) : (
                              <span aria-hidden="true" className="flex size-9 items-center justify-center rounded-full bg-brand-100 text-xs font-semibold text-brand-800">
                                {initials(u)}
                              </span>
                            )}
                            <div className="min-w-0">
                              <p className="flex items-center gap-2 font-medium text-slate-900">
                                {`${u.name} ${u.lastName}`.trim() || u.email}
                                {u.isApprover ? <span className="rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-800">Approver</span> : null}
                              </p>
                              <p className="truncate text-xs text-slate-500">{u.email}</p>
                            </div>
                          </div>
                        </td>
                        <td className="px-3 py-3">
                          <Select
                            aria-label={`Role of ${u.email}`}
                            className="w-32"
                            value={u.role}
                            disabled={u.id === me?.id || setRole.isPending}
                            onChange={(e) => onRole(u, e.target.value as Role)}
                          >
                            {ROLES.map((r) => (
                              <option key={r} value={r}>
                                {ROLE_LABELS[r]}
                              </option>
                            ))}
                          </Select>
                        </td>
                        <td className="max-w-xs px-3 py-3 text-slate-700">{clientsText(u)}</td>
                        <td className="px-3 py-3">
                          <div className="flex justify-end gap-1">
                            <Button size="sm" variant="ghost" onClick={() => setEditing(u)} aria-label={`Details of ${u.email}`}>
                              <Pencil /> Details
                            </Button>
                            <Button size="icon" variant="ghost" onClick={() => setRemoving(u)} disabled={u.id === me?.id} aria-label={`Remove ${u.email}`}>
                              <Trash2 />
                            </Button>
                          </div>
                        </td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
          )}

          <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
            <p aria-live="polite">{rangeText(currentPage, pageSize, total)}</p>
            <div className="flex flex-wrap items-center gap-3">
              <label className="flex items-center gap-2">
                Per page
                <Select
                  aria-label="Users per page"
                  className="w-20"
                  value={String(pageSize)}
                  onChange={(e) => {
                    setPageSize(Number(e.target.value))
                    setPage(1)
                  }}
                >
                  {USER_PAGE_SIZES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </Select>
              </label>
              {pageCount > 1 ? (
                <nav aria-label="Pages" className="flex items-center gap-1">
                  <Button variant="outline" size="sm" disabled={currentPage === 1} onClick={() => setPage(currentPage - 1)}>
                    Previous
                  </Button>
                  {pageWindow(currentPage - 1, pageCount).map((i, k) =>
                    i === null ? (
                      <span key={`gap-${k}`} className="px-1" aria-hidden>
                        …
                      </span>
                    ) : (
                      <Button key={i} size="sm" variant={i === currentPage - 1 ? 'default' : 'outline'} aria-current={i === currentPage - 1 ? 'page' : undefined} onClick={() => setPage(i + 1)}>
                        {i + 1}
                      </Button>
                    ),
                  )}
                  <Button variant="outline" size="sm" disabled={currentPage >= pageCount} onClick={() => setPage(currentPage + 1)}>
                    Next
                  </Button>
                </nav>
              ) : null}
            </div>
          </div>
        </CardContent>
      </Card>

      <UserClientCard users={rows} clients={clients.data ?? []} />

      <CreateUserDialog open={dialog === 'create'} onOpenChange={(o) => setDialog(o ? 'create' : null)} clients={clients.data ?? []} />
      <EmailAllDialog open={dialog === 'email'} onOpenChange={(o) => setDialog(o ? 'email' : null)} q={q} role={role} total={total} />
      <AssignToClientDialog
        open={dialog === 'assign'}
        onOpenChange={(o) => setDialog(o ? 'assign' : null)}
        userIds={[...selected]}
        clients={clients.data ?? []}
        onDone={() => {
          setSelected(new Set())
          setDialog(null)
        }}
      />
      <EditUserDialog key={editing?.id ?? 'none'} user={editing} clients={clients.data ?? []} onClose={() => setEditing(null)} />
      <RemoveUserDialog user={removing} onClose={() => setRemoving(null)} />
    </div>
  )
}
