import { useEffect, useRef } from 'react'

import { subscribeTopic, type TopicListener } from './realtime-store'

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

/** The topic of a client's task board. */
export function boardTopic(clientId: string): string {
  return `client:${clientId}:board`
}
