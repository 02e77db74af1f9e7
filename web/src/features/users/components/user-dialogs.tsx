import { Copy } from 'lucide-react'
import { useEffect, useState, type FormEvent } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Textarea } from '@/components/ui/textarea'
import type { ClientRef } from '@/api/types/ClientRef'
import { ApiError, errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useAssignToClient, useCreateUser, useDeleteUser, useEmailAll, useUpdateUser, type ManagedUser, type Role, type RoleFilter } from '../api'
import { ROLE_LABELS, ROLES, changes, criticalChanges, toUserEdit, userForm, validateUserForm, type UserForm, type UserFormErrors } from '../utils/users'

const CHANGE_LABELS: Record<string, string> = { role: 'Role', email: 'Email', clients: 'Clients' }

/** Edit User Details, with Confirm Critical Changes before a change of role, email or clients. */
export function EditUserDialog({ user, clients, onClose }: { user: ManagedUser | null; clients: ClientRef[]; onClose: () => void }) {
  // The parent mounts one dialog per user (its key), so the form starts from that user.
  const [form, setForm] = useState<UserForm | null>(() => (user ? userForm(user) : null))
  const [errors, setErrors] = useState<UserFormErrors>({})
  const [confirming, setConfirming] = useState<string[] | null>(null)
  const update = useUpdateUser()

  if (!user || !form) return null
  const set = <K extends keyof UserForm>(k: K, v: UserForm[K]) => setForm((f) => (f ? { ...f, [k]: v } : f))

  const save = () =>
    update.mutate(
      { id: user.id, body: toUserEdit(form) },
      {
        onSuccess: () => {
          toast.success('User updated', `${form.name} ${form.lastName}`.trim() + ' has been updated.')
          onClose()
        },
        onError: (error) => {
          setConfirming(null)
          toast.error('Update failed', error instanceof ApiError && error.status < 500 ? error.message : 'There was a problem updating the user profile')
        },
      },
    )

  const onSubmit = (e: FormEvent) => {
    e.preventDefault()
    const found = validateUserForm(form)
    setErrors(found)
    if (Object.keys(found).length > 0) {
      toast.error('Validation Error', 'Please fix the errors in the form')
      return
    }
    const changed = changes(userForm(user), form)
    if (changed.length === 0) {
      toast.info('No changes detected')
      onClose()
      return
    }
    const critical = criticalChanges(changed)
    if (critical.length > 0) setConfirming(critical)
    else save()
  }

  const toggleClient = (id: string) => set('clientIds', form.clientIds.includes(id) ? form.clientIds.filter((c) => c !== id) : [...form.clientIds, id])

  return (
    <>
      <Dialog open={confirming === null} onOpenChange={(o) => !o && !update.isPending && onClose()}>
        <DialogContent className="max-w-xl overflow-y-auto">
          <DialogHeader>
            <DialogTitle>Edit User Details</DialogTitle>
            <DialogDescription>{user.email}</DialogDescription>
          </DialogHeader>
          <form className="space-y-4" onSubmit={onSubmit} noValidate aria-label="Edit User Details">
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="First Name" error={errors.name}>
                {(ids) => <Input {...ids} value={form.name} maxLength={100} onChange={(e) => set('name', e.target.value)} />}
              </FormField>
              <FormField label="Last Name">
                {(ids) => <Input {...ids} value={form.lastName} maxLength={100} onChange={(e) => set('lastName', e.target.value)} />}
              </FormField>
            </div>
            <FormField label="Email" error={errors.email}>
              {(ids) => <Input {...ids} type="email" value={form.email} onChange={(e) => set('email', e.target.value)} />}
            </FormField>
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="Company">
                {(ids) => <Input {...ids} value={form.company} maxLength={200} onChange={(e) => set('company', e.target.value)} />}
              </FormField>
              <FormField label="Role">
                {(ids) => (
                  <Select {...ids} value={form.role} onChange={(e) => set('role', e.target.value as Role)}>
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {ROLE_LABELS[r]}
                      </option>
                    ))}
                  </Select>
                )}
              </FormField>
            </div>
            {form.role === 'admin' ? (
              <p className="text-sm text-slate-500">Administrators see every client.</p>
            ) : (
              <fieldset className="space-y-2">
                <legend className="text-sm font-medium text-slate-700">Clients</legend>
                <div className="grid max-h-40 gap-1 overflow-y-auto sm:grid-cols-2">
                  {clients.map((c) => (
                    <label key={c.id} className="flex items-center gap-2 text-sm">
                      <input type="checkbox" className="size-4 accent-brand-700" checked={form.clientIds.includes(c.id)} onChange={() => toggleClient(c.id)} />
                      {c.name}
                    </label>
                  ))}
                </div>
              </fieldset>
            )}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={onClose} disabled={update.isPending}>
                Cancel
              </Button>
              <Button type="submit" disabled={update.isPending}>
                {update.isPending ? 'Saving...' : 'Save Changes'}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
      <Dialog open={confirming !== null} onOpenChange={(o) => !o && !update.isPending && setConfirming(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Confirm Critical Changes</DialogTitle>
            <DialogDescription>
              You are changing {(confirming ?? []).map((c) => CHANGE_LABELS[c] ?? c).join(', ')} of {user.name} {user.lastName}. These changes affect what the user can access.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirming(null)} disabled={update.isPending}>
              Cancel
            </Button>
            <Button onClick={save} disabled={update.isPending}>
              {update.isPending ? 'Saving...' : 'Confirm Changes'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  )
}

/** Remove User: a confirmation, then the user is deleted (their sessions end at once). */
export function RemoveUserDialog({ user, onClose }: { user: ManagedUser | null; onClose: () => void }) {
  const remove = useDeleteUser()
  if (!user) return null
  const onConfirm = () =>
    remove.mutate(user.id, {
      onSuccess: () => {
        toast.success('User removed', `${user.email} has been removed.`)
        onClose()
      },
      onError: (error) => toast.error('Delete failed', error instanceof ApiError && error.status === 422 ? error.message : 'There was a problem removing the user.'),
    })
  return (
    <Dialog open onOpenChange={(o) => !o && !remove.isPending && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Remove User</DialogTitle>
          <DialogDescription>
            Are you sure you want to remove {`${user.name} ${user.lastName}`.trim() || user.email} ({user.email})? Their sessions end at once. This action cannot be undone.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={onClose} disabled={remove.isPending}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={onConfirm} disabled={remove.isPending}>
            {remove.isPending ? 'Removing...' : 'Remove User'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

type NewUserForm = { name: string; lastName: string; email: string; role: Role; clientId: string }
const EMPTY_NEW_USER: NewUserForm = { name: '', lastName: '', email: '', role: 'user', clientId: '' }
type NewUserErrors = Partial<Record<keyof NewUserForm, string>>

/** Create New User's checks (spec 000 section 5). */
export function validateNewUser(f: NewUserForm): NewUserErrors {
  const e: NewUserErrors = {}
  if (!f.name.trim()) e.name = 'Name is required'
  if (!f.lastName.trim()) e.lastName = 'Last name is required'
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(f.email.trim())) e.email = 'Invalid email address'
  if (!f.clientId && f.role !== 'admin') e.clientId = 'Client is required'
  return e
}

/**
 * Create New User: the invitation is mailed; when the mail cannot be delivered the account is
 * created with a temporary password, shown here once for the seconds the server says (10).
 */
export function CreateUserDialog({ open, onOpenChange, clients }: { open: boolean; onOpenChange: (open: boolean) => void; clients: ClientRef[] }) {
  const [temp, setTemp] = useState<{ email: string; password: string; seconds: number } | null>(null)

  // The temporary password disappears after its time.
  useEffect(() => {
    if (!temp) return
    const t = setTimeout(() => setTemp((x) => (x && x.seconds > 1 ? { ...x, seconds: x.seconds - 1 } : null)), 1000)
    return () => clearTimeout(t)
  }, [temp])

  return (
    <>
      <Dialog open={open} onOpenChange={onOpenChange}>
        {open ? <CreateUserBody clients={clients} onClose={() => onOpenChange(false)} onTemporaryPassword={setTemp} /> : null}
      </Dialog>
      {temp ? (
        <Alert variant="info" className="fixed right-6 bottom-24 z-50 max-w-md flex-col shadow-lg" data-testid="temporary-password">
          <p className="font-medium">Temporary password for {temp.email}</p>
          <div className="flex items-center gap-2">
            <code className="rounded bg-white px-2 py-1 font-mono text-sm">{temp.password}</code>
            <Button size="sm" variant="outline" onClick={() => void navigator.clipboard?.writeText(temp.password)} aria-label="Copy the temporary password">
              <Copy /> Copy
            </Button>
          </div>
          <p className="text-xs">Shown for {temp.seconds} more second(s), never again. The user must change it at the first sign-in.</p>
        </Alert>
      ) : null}
    </>
  )
}

type TempPassword = { email: string; password: string; seconds: number }

function CreateUserBody({ clients, onClose, onTemporaryPassword }: { clients: ClientRef[]; onClose: () => void; onTemporaryPassword: (t: TempPassword) => void }) {
  const [form, setForm] = useState<NewUserForm>(EMPTY_NEW_USER)
  const [errors, setErrors] = useState<NewUserErrors>({})
  const create = useCreateUser()
  const onOpenChange = (o: boolean) => {
    if (!o) onClose()
  }

  const set = <K extends keyof NewUserForm>(k: K, v: NewUserForm[K]) => setForm((f) => ({ ...f, [k]: v }))
  const onSubmit = (e: FormEvent) => {
    e.preventDefault()
    const found = validateNewUser(form)
    setErrors(found)
    if (Object.keys(found).length > 0) return
    create.mutate(
      { name: form.name.trim(), lastName: form.lastName.trim(), email: form.email.trim(), role: form.role, clientId: form.clientId || null },
      {
        onSuccess: (created) => {
          onOpenChange(false)
          if (created.inviteSent) {
            toast.success('User invitation sent', `An invitation was sent to ${form.email.trim()}.`)
          } else if (created.tempPassword) {
            toast.success('User Created Successfully', `The invitation email could not be sent: give ${form.email.trim()} the temporary password shown.`, {
              duration: created.tempPasswordSeconds * 1000,
            })
            onTemporaryPassword({ email: form.email.trim(), password: created.tempPassword, seconds: created.tempPasswordSeconds })
          } else {
            toast.success('User Created', 'The user was created, but the invitation may not have been sent.')
          }
        },
        onError: (error) => toast.error('Failed to create user', errorMessage(error, 'An unexpected error occurred. Please try again.')),
      },
    )
  }
  return (
    <DialogContent onEscapeKeyDown={(e) => create.isPending && e.preventDefault()} onInteractOutside={(e) => create.isPending && e.preventDefault()}>
          <DialogHeader>
            <DialogTitle>Create New User</DialogTitle>
            <DialogDescription>The user receives an invitation by email to set their password.</DialogDescription>
          </DialogHeader>
          <form className="space-y-4" onSubmit={onSubmit} noValidate aria-label="Create New User">
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="Name" error={errors.name}>
                {(ids) => <Input {...ids} value={form.name} maxLength={100} onChange={(e) => set('name', e.target.value)} />}
              </FormField>
              <FormField label="Last Name" error={errors.lastName}>
                {(ids) => <Input {...ids} value={form.lastName} maxLength={100} onChange={(e) => set('lastName', e.target.value)} />}
              </FormField>
            </div>
            <FormField label="Email" error={errors.email}>
              {(ids) => <Input {...ids} type="email" value={form.email} onChange={(e) => set('email', e.target.value)} />}
            </FormField>
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="Role">
                {(ids) => (
                  <Select {...ids} value={form.role} onChange={(e) => set('role', e.target.value as Role)}>
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {ROLE_LABELS[r]}
                      </option>
                    ))}
                  </Select>
                )}
              </FormField>
              <FormField label="Client" error={errors.clientId} hint={form.role === 'admin' ? 'Administrators join every client' : undefined}>
                {(ids) => (
                  <Select {...ids} value={form.clientId} onChange={(e) => set('clientId', e.target.value)}>
                    <option value="">Select a client</option>
                    {clients.map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.name}
                      </option>
                    ))}
                  </Select>
                )}
              </FormField>
            </div>
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => onOpenChange(false)} disabled={create.isPending}>
                Cancel
              </Button>
              <Button type="submit" disabled={create.isPending}>
                {create.isPending ? 'Creating...' : 'Create User'}
              </Button>
            </DialogFooter>
          </form>
    </DialogContent>
  )
}

/** Email All: a message to every user the list shows (its search and role filter). */
export function EmailAllDialog({ open, onOpenChange, q, role, total }: { open: boolean; onOpenChange: (open: boolean) => void; q: string; role: RoleFilter; total: number }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? <EmailAllBody onClose={() => onOpenChange(false)} q={q} role={role} total={total} /> : null}
    </Dialog>
  )
}

function EmailAllBody({ onClose, q, role, total }: { onClose: () => void; q: string; role: RoleFilter; total: number }) {
  const [subject, setSubject] = useState('')
  const [message, setMessage] = useState('')
  const send = useEmailAll()
  const onOpenChange = (o: boolean) => {
    if (!o) onClose()
  }
  const onSubmit = (e: FormEvent) => {
    e.preventDefault()
    if (!subject.trim() || !message.trim()) return
    send.mutate(
      { subject: subject.trim(), message: message.trim(), q: q || undefined, role: role === 'all' ? undefined : role },
      {
        onSuccess: (o) => {
          toast.success('Email sent', `${o.sent} message(s) queued${o.failed ? `, ${o.failed} failed` : ''}.`)
          onOpenChange(false)
        },
        onError: (error) => toast.error('Email failed', errorMessage(error, 'The messages could not be sent.')),
      },
    )
  }
  return (
    <DialogContent onEscapeKeyDown={(e) => send.isPending && e.preventDefault()} onInteractOutside={(e) => send.isPending && e.preventDefault()}>
        <DialogHeader>
          <DialogTitle>Email All</DialogTitle>
          <DialogDescription>One message to each of the {total} user(s) the list shows.</DialogDescription>
        </DialogHeader>
        <form className="space-y-4" onSubmit={onSubmit} aria-label="Email All">
          <FormField label="Subject">{(ids) => <Input {...ids} value={subject} maxLength={200} onChange={(e) => setSubject(e.target.value)} />}</FormField>
          <FormField label="Message">{(ids) => <Textarea {...ids} rows={6} value={message} maxLength={10000} onChange={(e) => setMessage(e.target.value)} />}</FormField>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)} disabled={send.isPending}>
              Cancel
            </Button>
            <Button type="submit" disabled={send.isPending || !subject.trim() || !message.trim() || total === 0}>
              {send.isPending ? 'Sending...' : 'Send'}
            </Button>
          </DialogFooter>
        </form>
    </DialogContent>
  )
}

/** Assign to Client: the selected users join one client with a client role. */
export function AssignToClientDialog({ open, onOpenChange, userIds, clients, onDone }: { open: boolean; onOpenChange: (open: boolean) => void; userIds: string[]; clients: ClientRef[]; onDone: () => void }) {
  const [clientId, setClientId] = useState('')
  const [role, setRole] = useState<'member' | 'approver'>('member')
  const assign = useAssignToClient()
  const onConfirm = () =>
    assign.mutate(
      { userIds, clientId, role },
      {
        onSuccess: (o) => {
          toast.success('Associations Created', `${o.added} user(s) joined the client; ${o.updated} now ${role === 'approver' ? 'approve for' : 'belong to'} it.`)
          onDone()
        },
        onError: (error) => toast.error('Association Error', errorMessage(error, 'The users could not be assigned.')),
      },
    )
  return (
    <Dialog open={open} onOpenChange={(o) => !assign.isPending && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Assign to Client</DialogTitle>
          <DialogDescription>{userIds.length} selected user(s) join the client.</DialogDescription>
        </DialogHeader>
        <div className="grid gap-4 sm:grid-cols-2">
          <FormField label="Client">
            {(ids) => (
              <Select {...ids} value={clientId} onChange={(e) => setClientId(e.target.value)}>
                <option value="">Select a client</option>
                {clients.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </Select>
            )}
          </FormField>
          <FormField label="Client role">
            {(ids) => (
              <Select {...ids} value={role} onChange={(e) => setRole(e.target.value as 'member' | 'approver')}>
                <option value="member">Member</option>
                <option value="approver">Approver</option>
              </Select>
            )}
          </FormField>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={assign.isPending}>
            Cancel
          </Button>
          <Button onClick={onConfirm} disabled={assign.isPending || !clientId || userIds.length === 0}>
            {assign.isPending ? 'Assigning...' : 'Assign'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
