import { arrayMove } from '@dnd-kit/sortable'

/** The ids in their new order after `active` is dropped on `over`; null when nothing moves. */
export function reorderedIds(ids: readonly string[], active: string, over: string | null): string[] | null {
  if (over === null || active === over) return null
  const from = ids.indexOf(active)
  const to = ids.indexOf(over)
  if (from < 0 || to < 0) return null
  return arrayMove([...ids], from, to)
}
