import { KnowledgeBase } from '@/features/knowledge-base/components/knowledge-base'

export function Component() {
  return <KnowledgeBase />
}
