import type { InsightTrace, InsightTraceStep } from '../api'

/** One node of a decision tree: a test of the procedure, the answer it took and the ones it did not. */
export type DecisionNode = {
  id: string
  /** The test, as a question (`original maturity <= 3 months?`). */
  rule: string
  /** Its article (`CRR Art. 116(3)`), empty for a lookup. */
  article: string
  inputs: InsightTraceStep['inputs']
  /** The answer taken (`no`, `50%`, `yes: ADIF (NIF …)`). */
  outcome: string
  /** Answers of a yes/no test that were not taken. */
  notTaken: string[]
  /** The next test, or the result at the end of the path. */
  child: DecisionNode | null
  /** Set on the last node: the decision. */
  result: DecisionResult | null
}

export type DecisionResult = {
  status: string
  currentRw: number
  regulatoryRw: number | null
  suggestedRw: number
  appliedRule: string
  regulatoryReference: string
  details: string
  flags: string[]
}

/** `yes` or `no` when an outcome is one (possibly followed by `: …` or ` (…)`), else null. */
export function binaryAnswer(outcome: string): 'yes' | 'no' | null {
  const m = /^(yes|no)\b/i.exec(outcome.trim())
  return m ? (m[1]!.toLowerCase() as 'yes' | 'no') : null
}

/**
 * The engine's trace as a tree: each test a node whose taken answer leads to the next test, the
 * other answer of a yes/no test shown as a branch not taken, and the decision at the end.
 */
export function buildDecisionTree(trace: InsightTrace): DecisionNode | null {
  const result: DecisionResult = {
    status: trace.status,
    currentRw: trace.currentRw,
    regulatoryRw: trace.regulatoryRw,
    suggestedRw: trace.suggestedRw,
    appliedRule: trace.appliedRule,
    regulatoryReference: trace.regulatoryReference,
    details: trace.details,
    flags: trace.flags,
  }
  let next: DecisionNode | null = null
  for (let i = trace.steps.length - 1; i >= 0; i--) {
    const s = trace.steps[i]!
    const answer = binaryAnswer(s.outcome)
    next = {
      id: `step-${i + 1}`,
      rule: s.test,
      article: s.article,
      inputs: s.inputs,
      outcome: s.outcome,
      notTaken: answer === 'yes' ? ['no'] : answer === 'no' ? ['yes'] : [],
      child: next,
      result: next === null ? result : null,
    }
  }
  return next
}

/** The nodes of a tree along its path, root first. */
export function pathOf(root: DecisionNode | null): DecisionNode[] {
  const out: DecisionNode[] = []
  for (let n = root; n; n = n.child) out.push(n)
  return out
}
