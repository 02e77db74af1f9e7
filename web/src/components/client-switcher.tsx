import { Building2 } from 'lucide-react'
import { useId } from 'react'
import { useSearchParams } from 'react-router'

import { Select } from '@/components/ui/select'
import { CLIENT_PARAM, useClientId } from '@/hooks/use-client-id'
import { useAuthStore } from '@/lib/auth-store'
import { useClientList } from '@/lib/clients-api'

/**
 * Administrators choose the client of a client-scoped screen (board, reports) here; the choice is
 * the URL's `?client=<id>`, so it survives a reload, a link and the back button. Other users work
 * on their own client and see nothing.
 */
export function ClientSwitcher({ currentName }: { /** The chosen client's name when the screen knows it (the board does). */ currentName?: string }) {
  const isAdmin = useAuthStore((s) => s.user?.role === 'admin')
  const ownClient = useAuthStore((s) => s.user?.client ?? null)
  const clientId = useClientId()
  const [params, setParams] = useSearchParams()
  const clients = useClientList(isAdmin)
  const id = useId()
  if (!isAdmin) return null

  const options = clients.data ?? (ownClient ? [ownClient] : [])
  // A client chosen by URL that is not in the list yet (still loading) keeps its own option.
  const known = options.some((c) => c.id === clientId)
  const onChange = (next: string) => {
    const updated = new URLSearchParams(params)
    updated.set(CLIENT_PARAM, next)
    // Folders belong to one client: a folder of the previous client means nothing in the next.
    updated.delete('folder')
    setParams(updated)
  }
  return (
    <div className="flex items-center gap-2" data-testid="client-switcher">
      <Building2 className="size-4 text-slate-500" aria-hidden="true" />
      <label htmlFor={id} className="text-sm font-medium text-slate-700">
        Client
      </label>
      <Select
        id={id}
        className="h-9 min-w-44"
        value={clientId ?? ''}
        onChange={(e) => onChange(e.target.value)}
        disabled={clients.isPending && options.length === 0}
        title={clients.isError ? 'The client list could not be loaded' : undefined}
      >
        {clientId === null ? <option value="">Choose a client</option> : null}
        {!known && clientId !== null ? <option value={clientId}>{currentName ?? (clients.isPending ? 'Loading...' : clientId)}</option> : null}
        {options.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </Select>
    </div>
  )
}
