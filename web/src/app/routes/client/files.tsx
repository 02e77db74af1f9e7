import { OurFiles } from '@/features/files/components/our-files'

export function Component() {
  return <OurFiles />
}
