import type { TaskMessage, TaskView } from './runState';
import { isInFlight, isReturned, type TaskState } from './taskStates';

/**
 * Whether a person's message can still reach the task's actor: it has an actor turn under way or
 * still to come (not started yet, at work, sent back by the merge queue, stopped with the run).
 * Work already approved (GREEN, merging), merged, skipped or waiting for a person takes none:
 * the first two have no actor turn left, the last is answered with a retry and its note.
 */
export function takesMessages(state: TaskState): boolean {
  return state === 'PENDING' || state === 'CANCELLED' || isInFlight(state) || isReturned(state);
}

/** The task's messages its actor has not heard yet, oldest first. */
export function undeliveredMessages(task: Pick<TaskView, 'messages'>): TaskMessage[] {
  return task.messages.filter((m) => !m.delivered);
}
