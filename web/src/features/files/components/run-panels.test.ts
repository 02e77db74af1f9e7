import { makeRun } from '@/testing/files-api'

import { newer } from '../hooks/use-run'
import { agentStatus, AI_AGENTS, formatPoints, readClassification, readLearning } from './run-panels'

const statuses = (run: ReturnType<typeof makeRun>) => AI_AGENTS.map((a) => agentStatus(run, a.stages))

describe('the AI panel', () => {
  it("marks the agents from the run's real stage", () => {
    expect(statuses(makeRun({ state: 'queued', stage: 'queued' }))).toEqual(['waiting', 'waiting', 'waiting', 'waiting', 'waiting'])
    expect(statuses(makeRun({ state: 'running', stage: 'reading' }))).toEqual(['active', 'waiting', 'waiting', 'waiting', 'waiting'])
    expect(statuses(makeRun({ state: 'running', stage: 'mapping' }))).toEqual(['done', 'active', 'waiting', 'waiting', 'waiting'])
    expect(statuses(makeRun({ state: 'running', stage: 'recording' }))).toEqual(['done', 'done', 'done', 'done', 'active'])
    expect(statuses(makeRun({ state: 'failed', stage: 'evaluating' }))).toEqual(['done', 'done', 'failed', 'waiting', 'waiting'])
    expect(statuses(makeRun({ state: 'completed', stage: 'done' }))).toEqual(['done', 'done', 'done', 'done', 'done'])
  })

  it("reads the engine's classification evidence, and nothing when it is absent or malformed", () => {
    expect(readClassification(null)).toBeNull()
    expect(readClassification('text')).toBeNull()
    const view = readClassification({
      lever: 'pse',
      confidence: 0.9,
      evidence: [{ kind: 'reference', description: '45 of 50 NIFs found', weight: 2 }, { weight: 1 }],
      scores: [['rgla', 0.05], ['pse', 0.9], ['bad']],
    })
    expect(view).toEqual({
      lever: 'pse',
      confidence: 0.9,
      evidence: [{ description: '45 of 50 NIFs found', weight: 2 }],
      competitors: [
        { lever: 'pse', score: 0.9 },
        { lever: 'rgla', score: 0.05 },
      ],
      learning: null,
    })
  })

  it('reads the figures of past reviews only when they are all there and reviews exist', () => {
    expect(readLearning(undefined)).toBeNull()
    expect(readLearning({ reviewed: 0, approved: 0, accuracy: 0, similar: 0 })).toBeNull()
    expect(readLearning({ reviewed: 4, approved: 3, similar: 1 })).toBeNull()
    expect(readLearning({ reviewed: 4, approved: 3, accuracy: 0.75, similar: 1, earlierAccuracy: null })).toEqual({
      reviewed: 4,
      approved: 3,
      accuracy: 0.75,
      similar: 1,
      earlierAccuracy: null,
      recentAccuracy: null,
      clientReviewed: 0,
      clientAccuracy: null,
    })
    expect(readLearning({ reviewed: 4, approved: 3, accuracy: 0.75, similar: 1, clientReviewed: 2, clientApproved: 2, clientAccuracy: 1 })).toMatchObject({
      clientReviewed: 2,
      clientAccuracy: 1,
    })
    const view = readClassification({ lever: 'pse', learning: { reviewed: 12, approved: 9, accuracy: 0.75, similar: 2, earlierAccuracy: 0.5, recentAccuracy: 1 } })
    expect(view?.learning?.recentAccuracy).toBe(1)
  })

  it('writes an accuracy change in signed points', () => {
    expect(formatPoints(0.5)).toBe('+50.0 points')
    expect(formatPoints(-0.0833)).toBe('−8.3 points')
    expect(formatPoints(0)).toBe('±0.0 points')
  })
})

describe('newer', () => {
  it('keeps the snapshot with the greater run sequence; another run replaces it', () => {
    const a = makeRun({ seq: 4, percent: 40 })
    expect(newer(a, makeRun({ seq: 3, percent: 30 }))).toBe(a)
    expect(newer(a, makeRun({ seq: 4, percent: 45 }))).toBe(a)
    expect(newer(a, makeRun({ seq: 5, percent: 50 })).percent).toBe(50)
    expect(newer(a, makeRun({ id: 'run-2', seq: 1 })).id).toBe('run-2')
    expect(newer(null, a)).toBe(a)
  })
})
