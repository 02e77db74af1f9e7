import type { Board } from '@/api/types/Board'
import type { BoardPatch } from '@/api/types/BoardPatch'
import type { EventFrame } from '@/api/types/EventFrame'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useRef } from 'react'

import { boardTopic, useRealtimeTopic } from '@/lib/realtime'

import { boardKeys, getBoard } from '../api'
import { applyPatch } from '../utils/board-model'

/** Events kept to be applied again over a refetched board (a burst larger than this refetches again). */
const MAX_RECENT = 500

/** A board event: its payload is a patch of rows. */
type BoardEventFrame = Extract<EventFrame, { data: BoardPatch }>

function isBoardEvent(frame: EventFrame): frame is BoardEventFrame {
  return /^(column|task|category)\./.test(frame.type)
}

/**
 * The client's board, kept live: events patch the cached board in sequence; a gap, a reconnect or
 * a server resync refetches it.
 */
export function useBoard(clientId: string | null) {
  const queryClient = useQueryClient()
  // Events applied while a refetch is in flight: the snapshot it brings back may predate them,
  // so they are applied again on top of it (otherwise the refetch would undo them for good).
  const recent = useRef<BoardEventFrame[]>([])
  const query = useQuery({
    queryKey: boardKeys.board(clientId ?? ''),
    queryFn: async () => {
      const fresh = await getBoard(clientId!)
      const newer = recent.current.filter((f) => f.seq > fresh.seq)
      recent.current = newer
      if (newer.length > 0 && newer[0]!.seq > fresh.seq + 1) {
        // More events came than were kept: what lies between is unknown, fetch again.
        setTimeout(() => void queryClient.invalidateQueries({ queryKey: boardKeys.board(clientId!) }), 0)
      }
      return newer.reduce((board, f) => applyPatch(board, f.data, f.seq), fresh)
    },
    enabled: clientId !== null,
    // Live: the cache is kept current by events, never by polling or focus refetches.
    staleTime: Infinity,
  })
  useRealtimeTopic(clientId ? boardTopic(clientId) : null, {
    onEvent: (frame) => {
      if (!clientId || !isBoardEvent(frame)) return
      recent.current = [...recent.current.slice(-(MAX_RECENT - 1)), frame]
      queryClient.setQueryData<Board>(boardKeys.board(clientId), (board) =>
        board ? applyPatch(board, frame.data, frame.seq) : board,
      )
    },
    onResync: () => {
      if (clientId) void queryClient.invalidateQueries({ queryKey: boardKeys.board(clientId) })
    },
  })
  return query
}
