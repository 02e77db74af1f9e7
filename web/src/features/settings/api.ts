import type { AdminConfiguration } from '@/api/types/AdminConfiguration'
import type { Profile } from '@/api/types/Profile'
import type { ProfileInput } from '@/api/types/ProfileInput'
import type { ProjectInput } from '@/api/types/ProjectInput'
import type { ProjectSettings } from '@/api/types/ProjectSettings'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { sendForm } from '@/lib/form-upload'
import { useRealtimeTopic } from '@/lib/realtime'

export type { AdminConfiguration } from '@/api/types/AdminConfiguration'
export type { Profile } from '@/api/types/Profile'
export type { ProjectSettings } from '@/api/types/ProjectSettings'

export const settingsKeys = {
  profile: ['profile'] as const,
  project: (clientId: string) => ['project-settings', clientId] as const,
  configuration: ['admin', 'configuration'] as const,
}

const clientQuery = (clientId: string) => `?client_id=${encodeURIComponent(clientId)}`

export const getProfile = () => api.get<Profile>('/api/profile')
export const updateProfile = (input: ProfileInput) => apiRequest<Profile>('/api/profile', { method: 'PUT', body: input })
export const uploadAvatar = (file: File) =>
  sendForm<Profile>('/api/profile/avatar', 'PUT', () => {
    const form = new FormData()
    form.append('avatar', file, file.name)
    return form
  })
export const removeAvatar = () => apiRequest<Profile>('/api/profile/avatar', { method: 'DELETE' })
export const changePassword = (currentPassword: string, newPassword: string) =>
  api.post<void>('/api/auth/change-password', { current_password: currentPassword, new_password: newPassword })
export const getProjectSettings = (clientId: string) => api.get<ProjectSettings>(`/api/project-settings${clientQuery(clientId)}`)
export const updateProjectSettings = (clientId: string, input: ProjectInput) =>
  apiRequest<ProjectSettings>(`/api/project-settings${clientQuery(clientId)}`, { method: 'PUT', body: input })
export const getConfiguration = () => api.get<AdminConfiguration>('/api/admin/configuration')

export function useProfile() {
  return useQuery({ queryKey: settingsKeys.profile, queryFn: getProfile })
}

function useProfileMutation<V>(fn: (v: V) => Promise<Profile>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: fn,
    onSuccess: (profile) => queryClient.setQueryData(settingsKeys.profile, profile),
  })
}

export const useUpdateProfile = () => useProfileMutation(updateProfile)
export const useUploadAvatar = () => useProfileMutation(uploadAvatar)
export const useRemoveAvatar = () => useProfileMutation((_: void) => removeAvatar())

export function useChangePassword() {
  return useMutation({ mutationFn: ({ current, next }: { current: string; next: string }) => changePassword(current, next) })
}

/** The topic of a client's project settings. */
export const settingsTopic = (clientId: string) => `client:${clientId}:settings`

/** A client's project settings, live: a colleague's change refetches them. */
export function useProjectSettings(clientId: string | null) {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: settingsKeys.project(clientId ?? '') })
  useRealtimeTopic(clientId ? settingsTopic(clientId) : null, {
    onEvent: (frame) => {
      if (frame.type === 'project.updated') refetch()
    },
    onResync: refetch,
  })
  return useQuery({
    queryKey: settingsKeys.project(clientId ?? ''),
    queryFn: () => getProjectSettings(clientId ?? ''),
    enabled: clientId !== null,
  })
}

export function useUpdateProjectSettings(clientId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: ProjectInput) => updateProjectSettings(clientId, input),
    onSuccess: (settings) => queryClient.setQueryData(settingsKeys.project(clientId), settings),
  })
}

export function useConfiguration() {
  return useQuery({ queryKey: settingsKeys.configuration, queryFn: getConfiguration })
}
