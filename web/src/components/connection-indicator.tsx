import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'
import { cn } from '@/lib/cn'
import { useRealtimeStore, type ConnectionStatus } from '@/lib/realtime'

const LOOK: Record<ConnectionStatus, { dot: string; label: string; detail: string }> = {
  idle: { dot: 'bg-slate-300', label: 'Live updates off', detail: 'This page does not use live updates.' },
  connecting: { dot: 'bg-amber-400 animate-pulse', label: 'Connecting', detail: 'Connecting to live updates...' },
  open: { dot: 'bg-emerald-500', label: 'Live', detail: 'Changes made by others appear as they happen.' },
  reconnecting: { dot: 'bg-amber-500 animate-pulse', label: 'Reconnecting', detail: 'Connection lost. Reconnecting...' },
  offline: { dot: 'bg-red-500', label: 'Offline', detail: 'Live updates stopped. Sign in again to resume.' },
}

/** The top bar's small live-connection indicator, only on screens that show something live. */
export function ConnectionIndicator() {
  const status = useRealtimeStore((s) => s.status)
  const live = useRealtimeStore((s) => s.liveTopics > 0)
  if (!live) return null
  const look = LOOK[status]
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <span
          role="status"
          aria-label={look.label}
          data-status={status}
          className="inline-flex items-center gap-1.5 rounded-full border border-slate-200 px-2 py-1 text-xs font-medium text-slate-600"
        >
          <span className={cn('size-2 rounded-full', look.dot)} aria-hidden="true" />
          <span className="hidden sm:inline">{look.label}</span>
        </span>
      </TooltipTrigger>
      <TooltipContent>{look.detail}</TooltipContent>
    </Tooltip>
  )
}
