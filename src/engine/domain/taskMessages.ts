import type { MessageDelivery, RequestRefusal } from './events';
import type { AgentKind } from './runConfig';
import type { TaskMessage, TaskView } from './runState';
import { isInFlight, isReturned, type TaskState } from './taskStates';

/** The longest message a person may send to a task's agent: a note, not a file. */
export const MAX_MESSAGE_CHARS = 20_000;

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

/**
 * What became of a message by the time `sendToTask` stopped waiting: taken by the drive and
 * delivered (in the running turn, or the prompt of a turn that just started); taken, and waiting
 * for the actor's next step or turn (`agent` cannot take input mid-turn, or has not yet); refused
 * by the drive (the task moved on meanwhile); or not taken yet, with a process driving the run now or not.
 */
export type SendOutcome =
  | { kind: 'delivered'; how: MessageDelivery; attempt: number }
  | { kind: 'queued'; agent: AgentKind; midTurn: boolean }
  | { kind: 'refused'; why: RequestRefusal; state?: TaskState }
  | { kind: 'not_taken'; driven: boolean };
