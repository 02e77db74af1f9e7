import { useEffect, useRef } from 'react'

import { holdSessionEvents, subscribeTopic, type TopicListener } from './realtime-store'

export { useRealtimeStore, type ConnectionStatus } from './realtime-store'

/**
 * Keeps a topic subscribed while the component is mounted (`topic` null: nothing). The handlers
 * may change on every render; the subscription itself only follows the topic.
 */
export function useRealtimeTopic(topic: string | null, handlers: TopicListener): void {
  const ref = useRef(handlers)
  useEffect(() => {
    ref.current = handlers
  })
  useEffect(() => {
    if (!topic) return
    return subscribeTopic(topic, {
      onEvent: (frame) => ref.current.onEvent(frame),
      onResync: () => ref.current.onResync(),
    })
  }, [topic])
}

/**
 * Holds the event socket open while `enabled` (the signed-in shell), so that a role change made
 * by an administrator reaches this tab at once on any screen.
 */
export function useSessionEvents(enabled: boolean): void {
  useEffect(() => (enabled ? holdSessionEvents() : undefined), [enabled])
}

/** The topic of a client's task board. */
export function boardTopic(clientId: string): string {
  return `client:${clientId}:board`
}
