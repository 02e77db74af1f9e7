import { UserManagement } from '@/features/users/components/user-management'

export function Component() {
  return <UserManagement />
}
