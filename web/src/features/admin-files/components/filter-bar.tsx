import { Search, X } from 'lucide-react'
import { useId } from 'react'

import type { ClientRef } from '@/api/types/ClientRef'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { formatDate } from '@/lib/format'

import type { AdminFileFilters, Lever } from '../api'
import { leverCategories } from '../utils/format'

type Props = {
  filters: AdminFileFilters
  /** The search box's text (applied after a pause). */
  search: string
  clients: ClientRef[]
  levers: Lever[]
  onSearch: (value: string) => void
  onChange: (patch: Partial<AdminFileFilters>) => void
  onClear: () => void
}

/** Whether any filter is set. */
export function hasFilters(filters: AdminFileFilters, search: string): boolean {
  return (
    search.trim() !== '' ||
    filters.q.trim() !== '' ||
    filters.clientId !== '' ||
    filters.category !== '' ||
    filters.lever !== '' ||
    filters.from !== '' ||
    filters.to !== '' ||
    filters.status !== 'all'
  )
}

/**
 * File Management's filter bar (spec 2.1): free text, client, lever category ('All Categories'),
 * lever ('All Levers', disabled until a category is chosen; a new category resets it), start and
 * end dates (inclusive to the end of the day), status, and 'Clear Filters' when any is set.
 */
export function FilterBar({ filters, search, clients, levers, onSearch, onChange, onClear }: Props) {
  const ids = { q: useId(), client: useId(), category: useId(), lever: useId(), from: useId(), to: useId(), status: useId() }
  const categories = leverCategories(levers)
  const inCategory = levers.filter((l) => l.category === filters.category)
  return (
    <div role="search" aria-label="File filters" className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm md:grid-cols-4 lg:grid-cols-8">
      <div className="space-y-1.5 md:col-span-4 lg:col-span-2">
        <Label htmlFor={ids.q}>Search</Label>
        <div className="relative">
          <Search aria-hidden className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" />
          <Input id={ids.q} className="pl-9" placeholder="Search files..." value={search} onChange={(e) => onSearch(e.target.value)} />
        </div>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={ids.client}>Client</Label>
        <Select id={ids.client} value={filters.clientId} onChange={(e) => onChange({ clientId: e.target.value })}>
          <option value="">All Clients</option>
          {clients.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </Select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={ids.category}>Lever Category</Label>
        <Select id={ids.category} value={filters.category} onChange={(e) => onChange({ category: e.target.value, lever: '' })}>
          <option value="">All Categories</option>
          {categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </Select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={ids.lever}>Lever</Label>
        <Select id={ids.lever} value={filters.lever} disabled={filters.category === '' && levers.length > 0} onChange={(e) => onChange({ lever: e.target.value })}>
          <option value="">All Levers</option>
          {inCategory.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </Select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={ids.from}>Start Date</Label>
        <Input
          id={ids.from}
          type="date"
          value={filters.from}
          max={filters.to || undefined}
          title={filters.from ? formatDate(filters.from) : undefined}
          onChange={(e) => onChange({ from: e.target.value })}
        />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={ids.to}>End Date</Label>
        <Input
          id={ids.to}
          type="date"
          value={filters.to}
          min={filters.from || undefined}
          title={filters.to ? formatDate(filters.to) : undefined}
          onChange={(e) => onChange({ to: e.target.value })}
        />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={ids.status}>Status</Label>
        <Select id={ids.status} value={filters.status} onChange={(e) => onChange({ status: e.target.value as AdminFileFilters['status'] })}>
          <option value="all">All Status</option>
          <option value="processed">Processed</option>
          <option value="unprocessed">Unprocessed</option>
        </Select>
      </div>
      {hasFilters(filters, search) && (
        <div className="flex items-end md:col-span-4 lg:col-span-8">
          <Button variant="ghost" size="sm" onClick={onClear}>
            <X /> Clear Filters
          </Button>
        </div>
      )}
    </div>
  )
}
