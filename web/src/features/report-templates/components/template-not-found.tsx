import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { paths } from '@/config/paths'

/** A template id that names nothing (deleted, or never there). */
export function TemplateNotFound() {
  return (
    <Card className="mx-auto flex max-w-xl flex-col items-center gap-3 p-10 text-center">
      <h1 className="text-lg font-semibold text-slate-900">Template Not Found</h1>
      <p className="text-sm text-slate-500">The template you are looking for does not exist or was deleted.</p>
      <Button asChild variant="outline">
        <Link to={paths.admin.templates.getHref()}>Back to templates</Link>
      </Button>
    </Card>
  )
}
