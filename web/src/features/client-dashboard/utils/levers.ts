import type { LeverRow } from '../api'

/** The impact labels of the lever list (high above 30,000,000; medium above 15,000,000). */
export const IMPACT_LABEL: Record<LeverRow['impact'], string> = {
  high: 'High impact',
  medium: 'Medium impact',
  low: 'Low impact',
}

/** Levers with savings now or a month ago, largest first (the server orders them). */
export function activeLevers(levers: LeverRow[]): LeverRow[] {
  return levers.filter((l) => l.value !== 0 || l.previousValue !== 0)
}
