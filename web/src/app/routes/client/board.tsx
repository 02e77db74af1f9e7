import { TaskBoard } from '@/features/board/components/task-board'

export function Component() {
  return <TaskBoard />
}
