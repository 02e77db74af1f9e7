import { useParams } from 'react-router'

import { ClientDataRoom } from '@/features/clients/components/client-data-room'

export function Component() {
  const { clientId = '' } = useParams()
  return <ClientDataRoom clientId={clientId} />
}
