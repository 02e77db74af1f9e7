import type { EventFrame } from '@/api/types/EventFrame'
import type { Me } from '@/api/types/Me'
import { create } from 'zustand'

import { apiRequest, isUnauthenticated } from './api-client'
import { useAuthStore } from './auth-store'
import { getMe } from './session-api'
import { EventCloseCode } from './event-close-codes'
import { queryClient } from './query-client'

/**
 * The one event socket of the tab (`/api/ws`) and its subscriptions.
 *
 * - Screens register topic listeners with {@link subscribeTopic}; the socket opens with the first
 *   listener and every listener's topic is (re)subscribed on each open.
 * - The signed-in shell holds the socket open with {@link holdSessionEvents} even on screens with
 *   nothing live, so a role or membership change (`session.changed`) reaches every screen at once.
 * - Each topic's sequence is tracked: an event with the next number is delivered, an older one is
 *   dropped, and a jump (a missed event) makes the listeners refetch (`onResync`). After every
 *   (re)subscription the listeners refetch too, so a reconnect never leaves a stale screen.
 * - Topics that relay other topics' events with their own numbers ({@link PER_ENTITY_TOPICS}:
 *   `admin:runs` carries each run's `run.progress` with that run's `seq`) are checked per entity,
 *   so interleaved runs are neither gaps nor stale; the first event of an entity since the
 *   subscription is delivered (the screen compares it with the snapshot it read).
 * - A lost socket is reopened with exponential backoff and jitter, 1 s to 30 s.
 * - The client pings every 25 s and gives the server 10 s to answer before reconnecting; the
 *   server itself pings every 20 s and drops silent sockets after 40 s.
 */

export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'offline'

export type TopicListener = {
  /** An event in sequence. */
  onEvent: (frame: EventFrame) => void
  /** Events may have been missed: refetch what the screen shows. */
  onResync: () => void
}

/** First reconnect delay. */
export const BACKOFF_MIN_MS = 1_000
/** Longest reconnect delay. */
export const BACKOFF_MAX_MS = 30_000
/** Client heartbeat period. */
export const PING_INTERVAL_MS = 25_000
/** How long the server has to answer a heartbeat. */
export const PONG_TIMEOUT_MS = 10_000

/**
 * The delay before reconnect attempt `attempt` (0-based): an exponential ceiling from 1 s to 30 s,
 * with "equal jitter" (between half the ceiling and the ceiling) so that many tabs that lost the
 * server together do not come back together. `random` is in [0, 1).
 */
export function backoffDelay(attempt: number, random: number = Math.random()): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, attempt))
  return Math.max(BACKOFF_MIN_MS, Math.round(ceiling / 2 + (ceiling / 2) * random))
}

export type SeqVerdict = 'apply' | 'stale' | 'gap'

/** What to do with an event numbered `seq` when the last one seen on its topic was `last`. */
export function classifySeq(last: number, seq: number): SeqVerdict {
  if (seq <= last) return 'stale'
  if (seq === last + 1) return 'apply'
  return 'gap'
}

/**
 * Topics whose events carry the sequence of the entity they are about rather than the topic's
 * own: the entity of an event (`null`: checked per topic).
 */
export const PER_ENTITY_TOPICS: Readonly<Record<string, (frame: EventFrame) => string | null>> = {
  'admin:runs': (frame) => (frame.type === 'run.progress' ? frame.data.id : null),
}

type SocketLike = {
  readyState: number
  send: (data: string) => void
  close: (code?: number, reason?: string) => void
  onopen: ((ev: Event) => void) | null
  onclose: ((ev: CloseEvent) => void) | null
  onmessage: ((ev: MessageEvent) => void) | null
  onerror: ((ev: Event) => void) | null
}

type SocketFactory = (url: string) => SocketLike

const OPEN = 1

let makeSocket: SocketFactory = (url) => new WebSocket(url)
/** Checks the session before reconnecting after a refused socket (refreshes it when needed). */
let checkSession: () => Promise<boolean> = async () => {
  try {
    await apiRequest('/api/auth/me')
    return true
  } catch (error) {
    return !isUnauthenticated(error)
  }
}

/** Replaces the socket constructor and session check (tests). */
export function setRealtimeTransport(factory: SocketFactory, sessionCheck?: () => Promise<boolean>): void {
  makeSocket = factory
  if (sessionCheck) checkSession = sessionCheck
}

function socketUrl(): string {
  const { protocol, host } = window.location
  return `${protocol === 'https:' ? 'wss:' : 'ws:'}//${host}/api/ws`
}

type RealtimeState = {
  status: ConnectionStatus
  /** Consecutive failed attempts (0 once open). */
  attempt: number
  /** When the next reconnect is due (ms since epoch), while reconnecting. */
  nextRetryAt: number | null
  /** Resyncs caused by sequence gaps since the page loaded (shown in the indicator's tooltip). */
  gaps: number
  /** Topics the screens listen to: 0 on a screen with nothing live (no connection state to show). */
  liveTopics: number
}

export const useRealtimeStore = create<RealtimeState>()(() => ({
  status: 'idle',
  attempt: 0,
  nextRetryAt: null,
  gaps: 0,
  liveTopics: 0,
}))

const listeners = new Map<string, Set<TopicListener>>()
const lastSeq = new Map<string, number>()
/** The last sequence seen per entity of each {@link PER_ENTITY_TOPICS} topic. */
const entitySeq = new Map<string, Map<string, number>>()
let socket: SocketLike | null = null
let retryTimer: ReturnType<typeof setTimeout> | null = null
let pingTimer: ReturnType<typeof setInterval> | null = null
let pongTimer: ReturnType<typeof setTimeout> | null = null
let stopped = true
/** Holders of the socket for session events alone ({@link holdSessionEvents}). */
let sessionHolders = 0

function setStatus(patch: Partial<RealtimeState>) {
  useRealtimeStore.setState(patch)
}

function send(message: unknown) {
  if (socket && socket.readyState === OPEN) socket.send(JSON.stringify(message))
}

function resync(topic: string) {
  for (const l of listeners.get(topic) ?? []) l.onResync()
}

function clearTimers() {
  if (pingTimer) clearInterval(pingTimer)
  if (pongTimer) clearTimeout(pongTimer)
  pingTimer = null
  pongTimer = null
}

function handleFrame(frame: EventFrame) {
  if (pongTimer) {
    clearTimeout(pongTimer)
    pongTimer = null
  }
  switch (frame.type) {
    case 'pong':
    case 'error':
      return
    case 'subscribed':
      lastSeq.set(frame.topic, frame.seq)
      entitySeq.delete(frame.topic)
      // Whatever the screen fetched before this point may miss events: refetch once.
      resync(frame.topic)
      return
    case 'denied':
    case 'unsubscribed':
      lastSeq.delete(frame.topic)
      entitySeq.delete(frame.topic)
      resync(frame.topic)
      return
    case 'resync':
      for (const topic of listeners.keys()) resync(topic)
      return
    case 'session.changed':
      // The caller's role or clients changed: load them again, and what the screens show with them.
      void reloadCaller()
      return
  }
  const last = lastSeq.get(frame.topic)
  if (last === undefined) return // not (or no longer) subscribed
  const entity = PER_ENTITY_TOPICS[frame.topic]?.(frame) ?? null
  let verdict: SeqVerdict
  if (entity !== null) {
    let seen = entitySeq.get(frame.topic)
    if (!seen) {
      seen = new Map()
      entitySeq.set(frame.topic, seen)
    }
    const lastOfEntity = seen.get(entity)
    verdict = lastOfEntity === undefined ? 'apply' : classifySeq(lastOfEntity, frame.seq)
    if (verdict === 'stale') return
    seen.set(entity, frame.seq)
  } else {
    verdict = classifySeq(last, frame.seq)
    if (verdict === 'stale') return
    lastSeq.set(frame.topic, frame.seq)
  }
  if (verdict === 'gap') {
    setStatus({ gaps: useRealtimeStore.getState().gaps + 1 })
    resync(frame.topic)
    return
  }
  for (const l of listeners.get(frame.topic) ?? []) l.onEvent(frame)
}

async function reloadCaller() {
  try {
    const me: Me = await getMe()
    if (useAuthStore.getState().status === 'authenticated') useAuthStore.getState().setUser(me)
    void queryClient.invalidateQueries()
  } catch {
    // The next request or re-check will tell (an ended session closes the socket).
  }
}

function scheduleReconnect(afterRefusal: boolean) {
  if (stopped || (listeners.size === 0 && sessionHolders === 0)) {
    setStatus({ status: 'idle', nextRetryAt: null })
    return
  }
  const attempt = useRealtimeStore.getState().attempt
  const delay = backoffDelay(attempt)
  setStatus({ status: 'reconnecting', attempt: attempt + 1, nextRetryAt: Date.now() + delay })
  retryTimer = setTimeout(async () => {
    retryTimer = null
    if (afterRefusal && !(await checkSession())) {
      // Signed out: stay down until a screen subscribes again after the next sign-in.
      stopped = true
      setStatus({ status: 'offline', nextRetryAt: null })
      return
    }
    connect()
  }, delay)
}

function connect() {
  if (socket || stopped) return
  setStatus({ status: useRealtimeStore.getState().attempt === 0 ? 'connecting' : 'reconnecting', nextRetryAt: null })
  let opened = false
  const ws = makeSocket(socketUrl())
  socket = ws
  ws.onopen = () => {
    opened = true
    setStatus({ status: 'open', attempt: 0, nextRetryAt: null })
    lastSeq.clear()
    entitySeq.clear()
    const topics = [...listeners.keys()]
    if (topics.length > 0) send({ op: 'subscribe', topics })
    pingTimer = setInterval(() => {
      send({ op: 'ping' })
      pongTimer ??= setTimeout(() => ws.close(4000, 'heartbeat timeout'), PONG_TIMEOUT_MS)
    }, PING_INTERVAL_MS)
  }
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return
    try {
      handleFrame(JSON.parse(ev.data) as EventFrame)
    } catch {
      // A malformed frame is ignored; the sequence check catches anything it carried.
    }
  }
  ws.onerror = () => {}
  ws.onclose = (ev) => {
    if (socket !== ws) return
    socket = null
    clearTimers()
    lastSeq.clear()
    entitySeq.clear()
    // A socket refused before opening (expired access cookie) or closed for an ended session
    // makes the next attempt check the session first.
    scheduleReconnect(!opened || ev.code === EventCloseCode.UNAUTHENTICATED)
  }
}

/**
 * Listens to a topic's events; returns the function that stops listening. The socket opens with
 * the first listener.
 */
export function subscribeTopic(topic: string, listener: TopicListener): () => void {
  let set = listeners.get(topic)
  const isNewTopic = !set
  if (!set) {
    set = new Set()
    listeners.set(topic, set)
  }
  set.add(listener)
  if (isNewTopic) setStatus({ liveTopics: listeners.size })
  stopped = false
  if (!socket && !retryTimer) connect()
  else if (isNewTopic) send({ op: 'subscribe', topics: [topic] })
  return () => {
    const s = listeners.get(topic)
    if (!s) return
    s.delete(listener)
    if (s.size === 0) {
      listeners.delete(topic)
      setStatus({ liveTopics: listeners.size })
      lastSeq.delete(topic)
      entitySeq.delete(topic)
      send({ op: 'unsubscribe', topics: [topic] })
    }
  }
}

/**
 * Keeps the socket open while signed in, for the connection-wide events (`session.changed`: the
 * caller's role or clients changed), whatever the screen; returns the function that lets go.
 */
export function holdSessionEvents(): () => void {
  sessionHolders++
  stopped = false
  if (!socket && !retryTimer) connect()
  let held = true
  return () => {
    if (!held) return
    held = false
    sessionHolders = Math.max(0, sessionHolders - 1)
  }
}

/** Closes the socket and forgets every subscription (sign-out, tests). */
export function resetRealtime(): void {
  stopped = true
  if (retryTimer) clearTimeout(retryTimer)
  retryTimer = null
  clearTimers()
  const ws = socket
  socket = null
  ws?.close(1000, 'closed')
  listeners.clear()
  lastSeq.clear()
  entitySeq.clear()
  sessionHolders = 0
  useRealtimeStore.setState({ status: 'idle', attempt: 0, nextRetryAt: null, gaps: 0, liveTopics: 0 })
}

// Signing out closes the socket at once (the server would otherwise close it at its next session
// check); the next screen that subscribes after signing in opens a new one.
useAuthStore.subscribe((state, previous) => {
  if (previous.user && !state.user) resetRealtime()
})
