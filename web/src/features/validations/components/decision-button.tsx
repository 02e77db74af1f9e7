import type { ReactNode } from 'react'

import { Button, type ButtonProps } from '@/components/ui/button'
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'

/** The tooltip of a decision button for a caller who may not decide. */
export const NEED_APPROVER = 'You need approver permissions'

/**
 * Approve or Reject: disabled with the 'You need approver permissions' tooltip for callers who may
 * not decide (the tooltip sits on a wrapper, since a disabled button gets no pointer events).
 */
export function DecisionButton({ canApprove, children, disabled, ...props }: ButtonProps & { canApprove: boolean; children: ReactNode }) {
  if (canApprove) {
    return (
      <Button {...props} disabled={disabled}>
        {children}
      </Button>
    )
  }
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <span tabIndex={0} aria-label={NEED_APPROVER} className="inline-flex">
          <Button {...props} disabled>
            {children}
          </Button>
        </span>
      </TooltipTrigger>
      <TooltipContent>{NEED_APPROVER}</TooltipContent>
    </Tooltip>
  )
}
