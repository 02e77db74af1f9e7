import { CheckCircle2, CircleDot, GitBranch } from 'lucide-react'

import { cn } from '@/lib/cn'

import type { InsightDecisionDetail } from '../api'
import { formatWeight, statusLabel } from '../utils/format'
import { binaryAnswer, buildDecisionTree, type DecisionNode, type DecisionResult } from '../utils/tree'

function OutcomeChip({ outcome }: { outcome: string }) {
  const answer = binaryAnswer(outcome)
  return (
    <span
      className={cn(
        'inline-flex max-w-full items-center rounded-full px-2 py-0.5 text-xs font-semibold break-words',
        answer === 'yes' ? 'bg-emerald-100 text-emerald-800' : answer === 'no' ? 'bg-slate-200 text-slate-700' : 'bg-brand-100 text-brand-800',
      )}
    >
      {outcome}
    </span>
  )
}

function ResultNode({ result }: { result: DecisionResult }) {
  const lowered = result.suggestedRw < result.currentRw
  return (
    <div
      data-testid="decision-result"
      className={cn('rounded-lg border-2 p-4', lowered ? 'border-emerald-300 bg-emerald-50' : 'border-slate-300 bg-slate-50')}
    >
      <div className="flex flex-wrap items-center gap-2">
        <CheckCircle2 className={cn('size-5', lowered ? 'text-emerald-600' : 'text-slate-500')} aria-hidden />
        <span className="font-semibold text-slate-900">
          Proposed risk weight {formatWeight(result.suggestedRw)}
        </span>
        <span className="text-sm text-slate-600">(current {formatWeight(result.currentRw)}{result.regulatoryRw !== null ? `; regulatory ${formatWeight(result.regulatoryRw)}` : ''})</span>
        <span className="rounded-full bg-white px-2 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-slate-200">{statusLabel(result.status)}</span>
      </div>
      {result.appliedRule || result.regulatoryReference ? (
        <p className="mt-2 text-sm text-slate-800">
          {result.appliedRule ? <span className="font-mono text-xs">{result.appliedRule}</span> : null}
          {result.appliedRule && result.regulatoryReference ? ' · ' : null}
          {result.regulatoryReference ? <span className="font-medium">{result.regulatoryReference}</span> : null}
        </p>
      ) : null}
      <p className="mt-1 text-sm text-slate-600">{result.details}</p>
      {result.flags.length > 0 ? (
        <ul className="mt-2 flex flex-wrap gap-1" aria-label="Flags">
          {result.flags.map((f) => (
            <li key={f} className="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900">
              {f}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

/** One test and, nested under it, the answer taken and the rest of the path. */
function TreeItem({ node, level }: { node: DecisionNode; level: number }) {
  return (
    <li role="treeitem" aria-level={level} aria-expanded={node.child || node.result ? true : undefined} aria-label={`${node.rule} ${node.outcome}`} className="relative">
      <div data-testid="decision-node" className="rounded-lg border border-slate-200 bg-white p-3 shadow-xs">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            {node.article ? (
              <span className="mb-1 inline-block rounded bg-brand-50 px-1.5 py-0.5 text-xs font-semibold text-brand-800 ring-1 ring-brand-200">{node.article}</span>
            ) : null}
            <p className="text-sm font-medium text-slate-900">{node.rule}</p>
          </div>
          <OutcomeChip outcome={node.outcome} />
        </div>
        {node.inputs.length > 0 ? (
          <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
            {node.inputs.map((i, k) => (
              <div key={`${i.name}-${k}`} className="flex gap-1">
                <dt className="text-slate-500">{i.name}:</dt>
                <dd className="font-medium text-slate-800">{i.value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
      </div>
      {node.child || node.result ? (
        <div className="relative ml-5 border-l-2 border-brand-300 pt-2 pb-1 pl-5">
          <div className="mb-2 flex flex-wrap items-center gap-3 text-xs">
            <span className="inline-flex items-center gap-1 font-semibold text-brand-800">
              <CircleDot className="size-3" aria-hidden /> {binaryAnswer(node.outcome) ?? 'then'}
            </span>
            {node.notTaken.map((a) => (
              <span key={a} className="inline-flex items-center gap-1 rounded border border-dashed border-slate-300 px-1.5 py-0.5 text-slate-400" title="A branch the procedure did not take">
                <GitBranch className="size-3" aria-hidden /> {a}: not taken
              </span>
            ))}
          </div>
          {node.child ? (
            <ul role="group" className="space-y-0">
              <TreeItem node={node.child} level={level + 1} />
            </ul>
          ) : node.result ? (
            <ResultNode result={node.result} />
          ) : null}
        </div>
      ) : null}
    </li>
  )
}

/**
 * The engine's decision trace of one exposure drawn as a tree: each test of the rule procedure in
 * the article's order with the inputs it read, the answer taken (the other answer of a yes/no test
 * shown as a branch not taken), and the decision at the end with its rule and article.
 */
export function DecisionTree({ detail }: { detail: InsightDecisionDetail }) {
  const root = buildDecisionTree(detail.trace)
  const t = detail.trace
  const d = detail.decision
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm text-slate-600">
        <span>
          Exposure <span className="font-semibold text-slate-900">{d.exposureId || `row ${d.row}`}</span>
        </span>
        <span>Lever {t.lever.toUpperCase()}</span>
        <span>Rule set {t.ruleSet}</span>
        <span>Reporting date {t.reportingDate}</span>
      </div>
      {root ? (
        <ul role="tree" aria-label="Decision tree" className="space-y-0">
          <TreeItem node={root} level={1} />
        </ul>
      ) : (
        <p className="text-sm text-slate-500">The engine took no test for this row.</p>
      )}
      {t.referenceEntries.length > 0 ? (
        <div className="rounded-lg border border-slate-200 p-3">
          <h4 className="text-sm font-semibold text-slate-900">Reference data used</h4>
          <ul className="mt-1 space-y-1 text-sm text-slate-700">
            {t.referenceEntries.map((e) => (
              <li key={`${e.list}-${e.key}`}>
                <span className="font-medium">{e.list}</span> list: {e.name} ({e.key}){e.asOf ? `, as of ${e.asOf}` : ''}
                <span className="block text-xs text-slate-500">{e.source}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  )
}
