import type { Board } from '@/api/types/Board'
import type { BoardPatch } from '@/api/types/BoardPatch'
import type { EventFrame } from '@/api/types/EventFrame'
import { useQuery, useQueryClient } from '@tanstack/react-query'

import { boardTopic, useRealtimeTopic } from '@/lib/realtime'

import { boardKeys, getBoard } from '../api'
import { applyPatch } from '../utils/board-model'

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
  const query = useQuery({
    queryKey: boardKeys.board(clientId ?? ''),
    queryFn: () => getBoard(clientId!),
    enabled: clientId !== null,
    // Live: the cache is kept current by events, never by polling or focus refetches.
    staleTime: Infinity,
  })
  useRealtimeTopic(clientId ? boardTopic(clientId) : null, {
    onEvent: (frame) => {
      if (!clientId || !isBoardEvent(frame)) return
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
