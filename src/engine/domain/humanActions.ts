import type { HumanAction } from './events';
import type { TaskView } from './runState';
import { TASK_STATE_WORDS } from './stateWords';
import { TaskStateMachine } from './taskStateMachine';
import type { TaskEvent } from './taskStates';
import { TaskloomError } from './taskloomError';

/** The transition each decision makes. */
export const HUMAN_ACTION_EVENT: Record<HumanAction, TaskEvent> = {
  retry: 'HUMAN_RETRY',
  accept: 'HUMAN_ACCEPTED',
  skip: 'HUMAN_SKIPPED',
  resolve: 'HAND_RESOLVE_STARTED',
  continue: 'HAND_RESOLVED',
};

const ORDER: HumanAction[] = ['retry', 'resolve', 'continue', 'accept', 'skip'];

/**
 * What a person may decide about the task now: the one place the engine, the CLI and the editor
 * ask. The state machine says which transitions exist; on top of it, work the merge queue sent
 * back (a conflict, a failed integration gate) cannot be accepted as it is, since it would only
 * be sent back again, and only that work can be resolved by hand.
 */
export function allowedHumanActions(task: Pick<TaskView, 'state' | 'queueProblem'>): HumanAction[] {
  return ORDER.filter((action) => {
    if (!TaskStateMachine.canApply(task.state, HUMAN_ACTION_EVENT[action])) return false;
    if (action === 'accept') return task.queueProblem === undefined;
    if (action === 'resolve') return task.queueProblem !== undefined;
    return true;
  });
}

/** A human decision the task's state does not allow: bad input, not a bug. */
export class HumanDecisionError extends TaskloomError {
  override readonly name = 'HumanDecisionError';
  constructor(message: string, hint: string) {
    super('bad_input', message, hint);
  }
}

/** Throws HumanDecisionError, naming what the task does allow, when `action` is not one of them. */
export function assertHumanAction(task: Pick<TaskView, 'id' | 'state' | 'queueProblem'>, action: HumanAction): void {
  const allowed = allowedHumanActions(task);
  if (allowed.includes(action)) return;
  throw new HumanDecisionError(
    `Task "${task.id}" (${TASK_STATE_WORDS[task.state]}) cannot be ${PAST[action]} now`,
    allowed.length ? `What it allows: ${allowed.join(', ')}.` : 'Nothing is waiting for you on this task.',
  );
}

const PAST: Record<HumanAction, string> = {
  retry: 'retried',
  accept: 'accepted',
  skip: 'skipped',
  resolve: 'resolved by hand',
  continue: 'continued (only a task being resolved by hand can)',
};
