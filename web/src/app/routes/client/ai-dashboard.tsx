import { AiDashboard } from '@/features/ai-insights/components/ai-dashboard'

/** AI Insights: the explainability dashboard of the client's own processing runs (spec 002). */
export function Component() {
  return <AiDashboard />
}
