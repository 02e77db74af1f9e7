import type { ClientRect, CollisionDetection, DroppableContainer } from '@dnd-kit/core'
import { describe, expect, it } from 'vitest'

import { boardCollision } from './board-collision'

type Args = Parameters<CollisionDetection>[0]

const rect = (left: number, top: number, width: number, height: number): ClientRect => ({
  left,
  top,
  width,
  height,
  right: left + width,
  bottom: top + height,
})

// Two columns 300 px wide; column B holds one card at its top, with empty space below it.
const rects: Record<string, ClientRect> = {
  'col:a': rect(0, 0, 300, 600),
  'col:b': rect(320, 0, 300, 600),
  'task:a1': rect(10, 60, 280, 80),
  'task:b1': rect(330, 60, 280, 80),
}

function args(active: string, pointer: { x: number; y: number } | null): Args {
  const droppableRects = new Map(Object.entries(rects))
  const droppableContainers = Object.keys(rects).map((id) => ({ id, rect: { current: rects[id] } }) as unknown as DroppableContainer)
  const at = pointer ?? { x: 150, y: 100 }
  return {
    active: { id: active, data: { current: undefined }, rect: { current: { initial: null, translated: null } } },
    collisionRect: rect(at.x - 140, at.y - 40, 280, 80),
    droppableRects,
    droppableContainers,
    pointerCoordinates: pointer,
  } as unknown as Args
}

const first = (a: Args) => String(boardCollision(a)[0]?.id)

describe('board collision', () => {
  it("drops a task on another column's empty space as a drop on that column", () => {
    // Just below column B's card: the closest corners alone would pick the card (no move).
    expect(first(args('task:a1', { x: 470, y: 220 }))).toBe('col:b')
  })

  it("treats the pointer on another column's card as that card (which moves nothing)", () => {
    expect(first(args('task:a1', { x: 470, y: 100 }))).toBe('task:b1')
  })

  it('lets a column meet only columns', () => {
    expect(first(args('col:a', { x: 470, y: 100 }))).toBe('col:b')
  })

  it('falls back to the closest corners without a pointer (keyboard)', () => {
    expect(first(args('task:a1', null))).toBe('task:a1')
  })
})
