import { ClassificationTraining } from '@/features/classification-training/components/classification-training'

export function Component() {
  return <ClassificationTraining />
}
