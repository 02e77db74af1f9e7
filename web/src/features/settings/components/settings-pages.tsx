import { Card } from '@/components/ui/card'
import { useClientId } from '@/hooks/use-client-id'

import { AdminConfigurationCard } from './admin-configuration-card'
import { PasswordCard } from './password-card'
import { ProfileCard } from './profile-card'
import { ProjectSettingsCard } from './project-settings-card'

function Heading({ title, subtitle }: { title: string; subtitle: string }) {
  return (
    <div>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
      <p className="mt-1 text-sm text-slate-500">{subtitle}</p>
    </div>
  )
}

/** /client/settings: the project's settings, then the user's own profile and password. */
export function ClientSettingsPage() {
  const clientId = useClientId()
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <Heading title="Account Settings" subtitle="Your project and your own account." />
      {clientId ? (
        <ProjectSettingsCard clientId={clientId} />
      ) : (
        <Card className="p-6 text-sm text-slate-500">You are not a member of a client yet, so there are no project settings to show.</Card>
      )}
      <ProfileCard />
      <PasswordCard />
    </div>
  )
}

/** /admin-profile: the administrator's own profile and password. */
export function AdminProfilePage() {
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <Heading title="Profile" subtitle="Your own account." />
      <ProfileCard />
      <PasswordCard />
    </div>
  )
}

/** /admin-settings: the configuration administrators need, read-only. */
export function AdminSettingsPage() {
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <Heading title="Settings" subtitle="How this installation sends mail and bounds uploads." />
      <AdminConfigurationCard />
    </div>
  )
}
