import { RefreshCw, Trash2, UserPlus } from 'lucide-react'
import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import type { ClientRef } from '@/api/types/ClientRef'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useRemoveMember, useSetMember, useSyncAdmins, type ManagedUser } from '../api'

type ClientRole = 'member' | 'approver'

/**
 * User-Client Management: a user's client memberships with their client-specific role (member
 * or approver), added, changed and removed; and the admin sync (every administrator to every
 * client).
 */
export function UserClientCard({ users, clients }: { users: ManagedUser[]; clients: ClientRef[] }) {
  const [userId, setUserId] = useState('')
  const [addClient, setAddClient] = useState('')
  const [addRole, setAddRole] = useState<ClientRole>('member')
  const setMember = useSetMember()
  const removeMember = useRemoveMember()
  const sync = useSyncAdmins()
  const user = users.find((u) => u.id === userId) ?? null
  const joinable = user ? clients.filter((c) => !user.clients.some((m) => m.clientId === c.id)) : []

  const change = (clientId: string, role: ClientRole, name: string) =>
    setMember.mutate(
      { clientId, userId, role },
      {
        onSuccess: () => toast.success('Associations Created', `${user?.email ?? 'The user'} is ${role === 'approver' ? 'an approver' : 'a member'} of ${name}.`),
        onError: (e) => toast.error('Association Error', errorMessage(e, 'The membership could not be saved.')),
      },
    )

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div>
          <CardTitle>User-Client Management</CardTitle>
          <CardDescription>Which clients a user belongs to, and whether they approve that client’s validations.</CardDescription>
        </div>
        <Button
          variant="outline"
          disabled={sync.isPending}
          onClick={() =>
            sync.mutate(undefined, {
              onSuccess: (o) => toast.success('Sync Complete', `${o.added} membership(s) added: every administrator belongs to every client.`),
              onError: (e) => toast.error('Sync Failed', errorMessage(e, 'Synchronization Error')),
            })
          }
        >
          <RefreshCw className={sync.isPending ? 'animate-spin' : undefined} /> Sync admins to all clients
        </Button>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="max-w-md space-y-1.5">
          <Label htmlFor="ucm-user">User</Label>
          <Select id="ucm-user" value={userId} onChange={(e) => setUserId(e.target.value)}>
            <option value="">Select a user of this page</option>
            {users.map((u) => (
              <option key={u.id} value={u.id}>
                {`${u.name} ${u.lastName}`.trim() || u.email} ({u.email})
              </option>
            ))}
          </Select>
        </div>
        {user ? (
          <>
            {user.role === 'admin' ? <p className="text-sm text-slate-500">Administrators see every client whatever their memberships.</p> : null}
            {user.clients.length === 0 ? (
              <p className="text-sm text-slate-500">No client memberships.</p>
            ) : (
              <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" aria-label="Client memberships">
                {user.clients.map((m) => (
                  <li key={m.clientId} className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm">
                    <span className="flex-1 font-medium text-slate-900">{m.clientName}</span>
                    <Select
                      aria-label={`Client role in ${m.clientName}`}
                      className="w-36"
                      value={m.role === 'approver' || m.role === 'admin' ? 'approver' : 'member'}
                      onChange={(e) => change(m.clientId, e.target.value as ClientRole, m.clientName)}
                      disabled={setMember.isPending}
                    >
                      <option value="member">Member</option>
                      <option value="approver">Approver</option>
                    </Select>
                    <Button
                      size="icon"
                      variant="ghost"
                      aria-label={`Remove from ${m.clientName}`}
                      disabled={removeMember.isPending}
                      onClick={() =>
                        removeMember.mutate(
                          { clientId: m.clientId, userId },
                          {
                            onSuccess: () => toast.success('User updated', `${user.email} no longer belongs to ${m.clientName}.`),
                            onError: (e) => toast.error('Association Error', errorMessage(e, 'The membership could not be removed.')),
                          },
                        )
                      }
                    >
                      <Trash2 />
                    </Button>
                  </li>
                ))}
              </ul>
            )}
            {joinable.length > 0 ? (
              <div className="flex flex-wrap items-end gap-3">
                <div className="space-y-1.5">
                  <Label htmlFor="ucm-client">Add to client</Label>
                  <Select id="ucm-client" className="w-56" value={addClient} onChange={(e) => setAddClient(e.target.value)}>
                    <option value="">Select a client</option>
                    {joinable.map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.name}
                      </option>
                    ))}
                  </Select>
                </div>
                <div className="space-y-1.5">
                  <Label htmlFor="ucm-role">Client role</Label>
                  <Select id="ucm-role" className="w-36" value={addRole} onChange={(e) => setAddRole(e.target.value as ClientRole)}>
                    <option value="member">Member</option>
                    <option value="approver">Approver</option>
                  </Select>
                </div>
                <Button
                  disabled={!addClient || setMember.isPending}
                  onClick={() => {
                    const name = clients.find((c) => c.id === addClient)?.name ?? 'the client'
                    change(addClient, addRole, name)
                    setAddClient('')
                  }}
                >
                  <UserPlus /> Add
                </Button>
              </div>
            ) : null}
          </>
        ) : null}
      </CardContent>
    </Card>
  )
}
