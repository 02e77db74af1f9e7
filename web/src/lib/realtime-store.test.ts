import { FakeEventSocket as FakeSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'

import { useAuthStore } from './auth-store'
import {
  BACKOFF_MAX_MS,
  BACKOFF_MIN_MS,
  PING_INTERVAL_MS,
  PONG_TIMEOUT_MS,
  backoffDelay,
  classifySeq,
  holdSessionEvents,
  resetRealtime,
  setRealtimeTransport,
  subscribeTopic,
  useRealtimeStore,
} from './realtime-store'

const latest = () => FakeSocket.latest()

function listener() {
  const events: number[] = []
  let resyncs = 0
  return {
    events,
    resyncs: () => resyncs,
    l: { onEvent: (f: { seq: number }) => events.push(f.seq), onResync: () => void resyncs++ },
  }
}

let sessionOk = true

beforeEach(() => {
  vi.useFakeTimers()
  FakeSocket.all = []
  sessionOk = true
  setRealtimeTransport((url) => new FakeSocket(url), async () => sessionOk)
})

afterEach(() => {
  resetRealtime()
  vi.useRealTimers()
})

describe('backoff', () => {
  it('grows from 1 s to a 30 s ceiling with jitter between half the ceiling and the ceiling', () => {
    expect(backoffDelay(0, 0)).toBe(BACKOFF_MIN_MS)
    expect(backoffDelay(0, 0.999)).toBe(BACKOFF_MIN_MS)
    expect(backoffDelay(1, 0)).toBe(1_000)
    expect(backoffDelay(1, 0.999)).toBe(1_999)
    expect(backoffDelay(3, 0)).toBe(4_000)
    expect(backoffDelay(3, 0.5)).toBe(6_000)
    for (const attempt of [5, 6, 10, 50]) {
      expect(backoffDelay(attempt, 0.999)).toBeLessThanOrEqual(BACKOFF_MAX_MS)
      expect(backoffDelay(attempt, 0)).toBe(BACKOFF_MAX_MS / 2)
    }
  })
})

describe('sequence check', () => {
  it('applies the next event, drops old ones and flags a jump as a gap', () => {
    expect(classifySeq(4, 5)).toBe('apply')
    expect(classifySeq(4, 4)).toBe('stale')
    expect(classifySeq(4, 2)).toBe('stale')
    expect(classifySeq(4, 7)).toBe('gap')
  })
})

describe('the event socket', () => {
  it('subscribes on open, delivers events in sequence and refetches after a gap', () => {
    const a = listener()
    subscribeTopic('client:a:board', a.l)
    const ws = latest()
    expect(ws.url).toMatch(/\/api\/ws$/)
    expect(useRealtimeStore.getState().status).toBe('connecting')
    ws.open()
    expect(useRealtimeStore.getState().status).toBe('open')
    expect(ws.sent).toEqual([{ op: 'subscribe', topics: ['client:a:board'] }])
    ws.frame('client:a:board', 7, 'subscribed')
    expect(a.resyncs()).toBe(1) // refetch once subscribed
    ws.frame('client:a:board', 8, 'task.created')
    ws.frame('client:a:board', 8, 'task.created') // duplicate
    ws.frame('client:a:board', 6, 'task.created') // older than the subscription
    expect(a.events).toEqual([8])
    ws.frame('client:a:board', 11, 'task.moved') // 9 and 10 were missed
    expect(a.events).toEqual([8])
    expect(a.resyncs()).toBe(2)
    expect(useRealtimeStore.getState().gaps).toBe(1)
    ws.frame('client:a:board', 12, 'task.moved')
    expect(a.events).toEqual([8, 12])
    // A topic nobody listens to is ignored.
    ws.frame('client:b:board', 1, 'task.moved')
    expect(a.events).toEqual([8, 12])
  })

  it('checks the admin runs topic per run: interleaved runs are neither gaps nor stale', () => {
    const events: [string, number][] = []
    let resyncs = 0
    subscribeTopic('admin:runs', {
      onEvent: (f) => {
        if (f.type === 'run.progress') events.push([f.data.id, f.seq])
      },
      onResync: () => void resyncs++,
    })
    const ws = latest()
    ws.open()
    ws.frame('admin:runs', 0, 'subscribed')
    expect(resyncs).toBe(1)
    const run = (id: string) => ({ id })
    // Two runs under way, each numbering its own events (the second in its second attempt).
    ws.frame('admin:runs', 4294967297, 'run.progress', run('r1'))
    ws.frame('admin:runs', 8589934593, 'run.progress', run('r2'))
    ws.frame('admin:runs', 4294967298, 'run.progress', run('r1'))
    ws.frame('admin:runs', 8589934594, 'run.progress', run('r2'))
    ws.frame('admin:runs', 5, 'run.progress', run('r3')) // a new run, first seen
    ws.frame('admin:runs', 4294967299, 'run.progress', run('r1'))
    ws.frame('admin:runs', 6, 'run.progress', run('r3'))
    expect(events).toEqual([
      ['r1', 4294967297],
      ['r2', 8589934593],
      ['r1', 4294967298],
      ['r2', 8589934594],
      ['r3', 5],
      ['r1', 4294967299],
      ['r3', 6],
    ])
    expect(resyncs).toBe(1)
    expect(useRealtimeStore.getState().gaps).toBe(0)
    // Per run: a duplicate is dropped, a jump within one run is a gap.
    ws.frame('admin:runs', 6, 'run.progress', run('r3'))
    expect(events).toHaveLength(7)
    ws.frame('admin:runs', 9, 'run.progress', run('r3'))
    expect(resyncs).toBe(2)
    expect(useRealtimeStore.getState().gaps).toBe(1)
    ws.frame('admin:runs', 10, 'run.progress', run('r3'))
    expect(events.at(-1)).toEqual(['r3', 10])
  })

  it('reconnects with backoff, resubscribes every topic and refetches', async () => {
    const a = listener()
    const b = listener()
    subscribeTopic('client:a:board', a.l)
    subscribeTopic('client:a:files', b.l)
    latest().open()
    expect(latest().sent).toEqual([{ op: 'subscribe', topics: ['client:a:board', 'client:a:files'] }])
    latest().frame('client:a:board', 1, 'subscribed')
    latest().frame('client:a:files', 1, 'subscribed')

    latest().serverClose(1006)
    expect(useRealtimeStore.getState().status).toBe('reconnecting')
    expect(FakeSocket.all).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(BACKOFF_MIN_MS)
    expect(FakeSocket.all).toHaveLength(2)
    // The second failure waits longer (between 1 and 2 s).
    latest().serverClose(1006)
    await vi.advanceTimersByTimeAsync(BACKOFF_MIN_MS - 1)
    const before = FakeSocket.all.length
    await vi.advanceTimersByTimeAsync(1_001)
    expect(FakeSocket.all.length).toBe(before + 1)

    latest().open()
    expect(useRealtimeStore.getState()).toMatchObject({ status: 'open', attempt: 0 })
    expect(latest().sent).toEqual([{ op: 'subscribe', topics: ['client:a:board', 'client:a:files'] }])
    latest().frame('client:a:board', 5, 'subscribed')
    latest().frame('client:a:files', 3, 'subscribed')
    expect([a.resyncs(), b.resyncs()]).toEqual([2, 2])
    latest().frame('client:a:board', 6, 'task.created')
    expect(a.events).toEqual([6])
  })

  it('stops when the session is gone and resumes when a screen subscribes again', async () => {
    const a = listener()
    const stop = subscribeTopic('client:a:board', a.l)
    latest().open()
    sessionOk = false
    latest().serverClose(4401)
    await vi.advanceTimersByTimeAsync(BACKOFF_MIN_MS)
    expect(useRealtimeStore.getState().status).toBe('offline')
    const count = FakeSocket.all.length
    await vi.advanceTimersByTimeAsync(60_000)
    expect(FakeSocket.all.length).toBe(count)
    stop()
    sessionOk = true
    subscribeTopic('client:a:board', a.l)
    expect(FakeSocket.all.length).toBe(count + 1)
  })

  it('drops a socket whose server stops answering the heartbeat', async () => {
    subscribeTopic('client:a:board', listener().l)
    const ws = latest()
    ws.open()
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS)
    expect(ws.sent).toContainEqual({ op: 'ping' })
    ws.frame('', 0, 'pong')
    await vi.advanceTimersByTimeAsync(PONG_TIMEOUT_MS)
    expect(ws.closedWith).toBeNull()
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS - PONG_TIMEOUT_MS + PONG_TIMEOUT_MS)
    expect(ws.closedWith).toBe(4000)
    expect(useRealtimeStore.getState().status).toBe('reconnecting')
  })

  it('closes the socket when the user signs out', () => {
    subscribeTopic('client:a:board', listener().l)
    const ws = latest()
    ws.open()
    useAuthStore.setState({ user: { id: 'u' } as never, status: 'authenticated' })
    useAuthStore.setState({ user: null, status: 'unauthenticated' })
    expect(ws.closedWith).toBe(1000)
    expect(useRealtimeStore.getState().status).toBe('idle')
  })

  it('unsubscribes the last listener of a topic and refetches on a server resync', () => {
    const a = listener()
    const stop = subscribeTopic('client:a:board', a.l)
    const ws = latest()
    ws.open()
    ws.frame('client:a:board', 1, 'subscribed')
    ws.frame('', 0, 'resync')
    expect(a.resyncs()).toBe(2)
    stop()
    expect(ws.sent).toContainEqual({ op: 'unsubscribe', topics: ['client:a:board'] })
    ws.frame('client:a:board', 2, 'task.created')
    expect(a.events).toEqual([])
  })

  it('loads the caller again when the server says their role or clients changed', async () => {
    vi.useRealTimers()
    useAuthStore.setState({ user: makeUser({ role: 'user' }), status: 'authenticated' })
    const calls = mockApi({ 'GET /api/auth/me': () => json(200, makeUser({ role: 'viewer' })) })
    subscribeTopic('client:a:board', listener().l)
    const ws = latest()
    ws.open()
    ws.frame('', 0, 'session.changed')
    await vi.waitFor(() => expect(useAuthStore.getState().user?.role).toBe('viewer'))
    expect(calls.map((c) => c.key)).toEqual(['GET /api/auth/me'])
  })
})

describe('session events on screens with nothing live', () => {
  it('holds the socket open without topics, reconnects it, and counts no live topic', async () => {
    const release = holdSessionEvents()
    const ws = latest()
    ws.open()
    expect(useRealtimeStore.getState().status).toBe('open')
    expect(useRealtimeStore.getState().liveTopics).toBe(0)
    expect(ws.sent).toEqual([])

    // A dropped socket comes back while held, even with no topic.
    ws.serverClose(1006)
    expect(useRealtimeStore.getState().status).toBe('reconnecting')
    await vi.advanceTimersByTimeAsync(BACKOFF_MAX_MS)
    expect(FakeSocket.all).toHaveLength(2)
    release()
  })

  it('counts the topics screens listen to (the connection state shows only then)', () => {
    const release = holdSessionEvents()
    latest().open()
    const stopA = subscribeTopic('client:a:board', listener().l)
    const stopA2 = subscribeTopic('client:a:board', listener().l)
    const stopB = subscribeTopic('client:a:reports', listener().l)
    expect(useRealtimeStore.getState().liveTopics).toBe(2)
    stopA()
    expect(useRealtimeStore.getState().liveTopics).toBe(2)
    stopA2()
    stopB()
    expect(useRealtimeStore.getState().liveTopics).toBe(0)
    release()
  })
})
