import { LeverDictionary } from '@/features/lever-dictionary/components/lever-dictionary'

export function Component() {
  return <LeverDictionary />
}
