import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover'

/** Characters shown in the table before the description is cut. */
export const DESCRIPTION_PREVIEW = 80

/** The table's description: cut with an ellipsis, the whole text in a popover and in a dialog. */
export function DescriptionCell({ lever, description }: { lever: string; description: string }) {
  const [full, setFull] = useState(false)
  if (description.trim() === '') return <span className="text-slate-400">—</span>
  if (description.length <= DESCRIPTION_PREVIEW) return <span className="text-slate-700">{description}</span>
  const preview = `${description.slice(0, DESCRIPTION_PREVIEW).trimEnd()}…`
  return (
    <>
      <Popover>
        <PopoverTrigger asChild>
          <button
            type="button"
            className="text-left text-slate-700 underline decoration-slate-300 decoration-dotted underline-offset-4 hover:text-slate-900"
            aria-label={`Description of ${lever}`}
          >
            {preview}
          </button>
        </PopoverTrigger>
        <PopoverContent>
          <p className="max-h-48 overflow-y-auto whitespace-pre-wrap">{description}</p>
          <Button variant="link" size="sm" className="mt-2 h-auto px-0" onClick={() => setFull(true)}>
            View full description
          </Button>
        </PopoverContent>
      </Popover>
      <Dialog open={full} onOpenChange={setFull}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{lever}</DialogTitle>
            <DialogDescription>Full description</DialogDescription>
          </DialogHeader>
          <p className="max-h-[60vh] overflow-y-auto text-sm whitespace-pre-wrap text-slate-700">{description}</p>
        </DialogContent>
      </Dialog>
    </>
  )
}
