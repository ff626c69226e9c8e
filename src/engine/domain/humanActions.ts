import type { HumanAction } from './events';
import type { RunState, TaskView } from './runState';
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

/**
 * A decision on a task of a cancelled run (retry, accept, skip, continue) drives the run on: the
 * run is resumed, and every task its cancel stopped is taken up again with the decided one.
 * Undefined when the run was not cancelled; else those other tasks, so that the CLI and the editor
 * can say so before the decision is made.
 */
export function resumedByDecision(state: Pick<RunState, 'status' | 'taskOrder' | 'tasks'>, taskId: string): { alsoTakenUp: string[] } | undefined {
  if (state.status !== 'cancelled') return undefined;
  return { alsoTakenUp: state.taskOrder.filter((id) => id !== taskId && state.tasks[id]?.state === 'CANCELLED') };
}
