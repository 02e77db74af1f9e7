import type { DatasetInfo } from '@/api/types/DatasetInfo'
import type { ReportMedia } from '@/api/types/ReportMedia'

import type { DataSource } from './nodes-model'

/** The picker's value of a source: `media:{id}` or `client:{dataset}`. */
export function sourceKey(s: DataSource | null): string {
  if (!s) return ''
  return s.kind === 'media' ? `media:${s.mediaId}` : `client:${s.dataset}`
}

/** The source a picker value names, among the uploaded tables and the client's datasets. */
export function sourceOf(key: string, media: ReportMedia[]): DataSource | null {
  if (key.startsWith('media:')) {
    const item = media.find((m) => m.id === key.slice(6))
    return item ? { kind: 'media', mediaId: item.id, sheet: item.sheet ?? '' } : null
  }
  if (key.startsWith('client:')) return { kind: 'client', dataset: key.slice(7) }
  return null
}

/** Whether a chart's or table's source still exists (an uploaded file may have been deleted). */
export function sourceExists(s: DataSource | null, media: ReportMedia[], datasets: DatasetInfo[]): boolean {
  if (!s) return false
  return s.kind === 'media' ? media.some((m) => m.id === s.mediaId && m.kind !== 'image') : datasets.some((d) => d.name === s.dataset)
}

type Props = {
  value: string
  onChange: (key: string) => void
  tables: ReportMedia[]
  datasets: DatasetInfo[]
}

/** The data-source picker of the chart and table builders: uploaded files and the client's own results. */
export function SourcePicker({ value, onChange, tables, datasets }: Props) {
  const groups = [...new Set(datasets.map((d) => d.group))]
  return (
    <label className="block space-y-1">
      <span className="text-xs font-medium text-slate-700">Data source</span>
      <select aria-label="Data source" value={value} onChange={(e) => onChange(e.target.value)} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
        <option value="">Choose data...</option>
        {tables.length > 0 && (
          <optgroup label="Uploaded files">
            {tables.map((m) => (
              <option key={m.id} value={`media:${m.id}`}>
                {m.name}
              </option>
            ))}
          </optgroup>
        )}
        {groups.map((g) => (
          <optgroup key={g} label={g === 'Savings' ? "Client's savings" : `Processed: ${g}`}>
            {datasets
              .filter((d) => d.group === g)
              .map((d) => (
                <option key={d.name} value={`client:${d.name}`}>
                  {d.label}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
    </label>
  )
}
