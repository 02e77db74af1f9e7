import { FileProcessor } from '@/features/files/components/file-processor'

export function Component() {
  return <FileProcessor />
}
