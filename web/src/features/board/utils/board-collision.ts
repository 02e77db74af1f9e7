import { closestCorners, pointerWithin, type CollisionDetection } from '@dnd-kit/core'

const isColumn = (id: string | number) => String(id).startsWith('col:')

/**
 * What a drag is over, for the rules of the specification: a task dropped on another column's
 * task does nothing, a task dropped on a column goes to its end.
 *
 * - A column being dragged only meets other columns.
 * - A task follows the pointer: the card under it if any (reorder, or nothing across columns),
 *   else the column under it (its empty space, header or gaps between cards), so a task can be
 *   moved to a column that already has cards. "Closest corners" alone almost always picks a card
 *   there, which the rules turn into no move.
 * - Keyboard drags (no pointer), or a pointer between columns, fall back to the closest corners.
 */
export const boardCollision: CollisionDetection = (args) => {
  if (isColumn(args.active.id)) {
    return closestCorners({ ...args, droppableContainers: args.droppableContainers.filter((c) => isColumn(c.id)) })
  }
  if (args.pointerCoordinates) {
    const within = pointerWithin(args)
    const card = within.find((c) => !isColumn(c.id))
    if (card) return [card]
    if (within.length > 0) return within
  }
  return closestCorners(args)
}
