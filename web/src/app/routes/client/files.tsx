import { useSearchParams } from 'react-router'

import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { OurFiles } from '@/features/files/components/our-files'
import { useLiveValidations, useValidationSummary } from '@/features/validations/api'
import { AlertsDashboard } from '@/features/validations/components/alerts-dashboard'
import { useClientId } from '@/hooks/use-client-id'

/** The query parameter of the Our Files page's tab (`alerts` opens the Alerts tab). */
export const TAB_PARAM = 'tab'

/** Our Files (spec 001 sections 2.7 and 2.9): the files and, in the Alerts tab, their validations. */
export function Component() {
  const clientId = useClientId()
  const [params, setParams] = useSearchParams()
  const tab = params.get(TAB_PARAM) === 'alerts' && clientId ? 'alerts' : 'files'
  useLiveValidations(clientId)
  const summary = useValidationSummary(clientId)
  if (!clientId) return <OurFiles />
  const pending = summary.data?.pendingValidations ?? 0
  return (
    <Tabs
      value={tab}
      onValueChange={(t) =>
        setParams(
          (p) => {
            const next = new URLSearchParams(p)
            if (t === 'alerts') next.set(TAB_PARAM, 'alerts')
            else next.delete(TAB_PARAM)
            return next
          },
          { replace: true },
        )
      }
      className="mx-auto max-w-7xl"
    >
      <TabsList aria-label="Our Files sections">
        <TabsTrigger value="files">Our Files</TabsTrigger>
        <TabsTrigger value="alerts">
          Alerts
          {pending > 0 && (
            <span aria-label={`${pending} pending validations`} className="ml-2 rounded-full bg-amber-500 px-2 py-0.5 text-xs font-semibold text-white">
              {pending}
            </span>
          )}
        </TabsTrigger>
      </TabsList>
      <TabsContent value="files">
        <OurFiles />
      </TabsContent>
      <TabsContent value="alerts">
        <AlertsDashboard key={clientId} clientId={clientId} />
      </TabsContent>
    </Tabs>
  )
}
