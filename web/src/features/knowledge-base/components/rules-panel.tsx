import { useMemo } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { DataTable, dataTableColumns } from '@/components/ui/data-table'
import { Spinner } from '@/components/ui/spinner'
import { formatDate } from '@/lib/format'

import { useRules, type RegulatoryRule } from '../api'

const col = dataTableColumns<RegulatoryRule>()

/** A rule's conditions or actions on one line. */
export function compactJson(v: Record<string, unknown>): string {
  return Object.entries(v)
    .map(([k, x]) => `${k}: ${typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x)}`)
    .join('; ')
}

/** The Rules tab: the regulatory rules in force, priority first then newest (spec 002). */
export function RulesPanel() {
  const rules = useRules()
  const columns = useMemo(
    () => [
      col.accessor('leverName', { header: 'Lever' }),
      col.accessor('ruleName', {
        header: 'Rule',
        cell: (c) => (
          <div className="min-w-48">
            <p className="font-medium text-slate-900">{c.row.original.ruleName}</p>
            {c.row.original.ruleDescription ? <p className="text-xs text-slate-500">{c.row.original.ruleDescription}</p> : null}
          </div>
        ),
      }),
      col.accessor('ruleType', { header: 'Type' }),
      col.accessor('priority', { header: 'Priority', cell: (c) => <span className="tabular-nums">{c.row.original.priority}</span> }),
      col.accessor('version', { header: 'Version', cell: (c) => <span className="tabular-nums">v{c.row.original.version}</span> }),
      col.accessor('articleReference', { header: 'Article' }),
      col.accessor((r) => compactJson(r.conditions), { id: 'conditions', header: 'Conditions', cell: (c) => <code className="text-xs break-words">{compactJson(c.row.original.conditions)}</code> }),
      col.accessor((r) => compactJson(r.actions), { id: 'actions', header: 'Actions', cell: (c) => <code className="text-xs break-words">{compactJson(c.row.original.actions)}</code> }),
      col.accessor('createdAt', {
        header: 'Saved',
        cell: (c) => (
          <span className="text-xs text-slate-600">
            {formatDate(c.row.original.createdAt)}
            {c.row.original.createdBy ? ` · ${c.row.original.createdBy}` : ''}
            {c.row.original.sourceDocumentName ? <span className="block">{c.row.original.sourceDocumentName}</span> : null}
          </span>
        ),
      }),
    ],
    [],
  )
  return (
    <Card>
      <CardHeader>
        <CardTitle>Rules</CardTitle>
        <CardDescription>Regulatory rules saved from extracted levers, highest priority first. Saving a rule again writes its next version.</CardDescription>
      </CardHeader>
      <CardContent>
        {rules.isPending ? (
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner /> Loading rules…
          </p>
        ) : rules.isError ? (
          <Alert variant="destructive" className="flex items-center justify-between gap-4">
            <span>Failed to load rules data</span>
            <Button variant="outline" size="sm" onClick={() => void rules.refetch()}>
              Retry
            </Button>
          </Alert>
        ) : (
          <DataTable
            label="Regulatory rules"
            columns={columns}
            data={rules.data}
            getRowId={(r) => r.id}
            initialPageSize={20}
            empty="No rules saved yet. Extract levers from an indexed document and save them to the knowledge base."
          />
        )}
      </CardContent>
    </Card>
  )
}
