import { LeverJustifications } from '@/features/lever-justifications/components/lever-justifications'

export function Component() {
  return <LeverJustifications />
}
