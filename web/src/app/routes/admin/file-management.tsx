import { FileManagement } from '@/features/admin-files/components/file-management'

export function Component() {
  return <FileManagement />
}
