import type { HumanAction } from './events';
import type { RunState, TaskView } from './runState';
import { TASK_STATE_WORDS } from './stateWords';
import { TaskStateMachine } from './taskStateMachine';
import type { TaskEvent, TaskState } from './taskStates';
import { TaskloomError } from './taskloomError';

/** The transition each decision makes (continue: after a resolution by hand; see humanActionEvent). */
export const HUMAN_ACTION_EVENT: Record<HumanAction, TaskEvent> = {
  retry: 'HUMAN_RETRY',
  accept: 'HUMAN_ACCEPTED',
  skip: 'HUMAN_SKIPPED',
  resolve: 'HAND_RESOLVE_STARTED',
  continue: 'HAND_RESOLVED',
};

/** The transition a decision makes from `state`: continue finishes a resolution by hand, or hands back a task a person stopped or took over. */
export const humanActionEvent = (state: TaskState, action: HumanAction): TaskEvent =>
  action === 'continue' && state === 'NEEDS_HUMAN' ? 'HANDED_BACK' : HUMAN_ACTION_EVENT[action];

const ORDER: HumanAction[] = ['retry', 'resolve', 'continue', 'accept', 'skip'];

/** What a decision is asked about: the task's state and the facts the rules below read. */
export type DecidableTask = Pick<TaskView, 'id' | 'state' | 'queueProblem' | 'changedFiles' | 'skippedByDependency' | 'withPerson' | 'worktreePath'>;

/**
 * Why the task does not allow a decision now, as data (each view words it; assertHumanAction for
 * the engine and the CLI): its state has no such step; the work was sent back by the merge queue
 * (it cannot be accepted as it is, it would only be sent back again) or was not (only such work is
 * resolved by hand); its commits changed nothing (accepting would merge nothing and call it done);
 * or it was skipped because a dependency was (it comes back by itself when that one is retried);
 * only work a person stopped or took over is handed back (`not_with_person`), from its worktree.
 */
export type HumanActionRefusal =
  | { kind: 'state' }
  | { kind: 'sent_back' }
  | { kind: 'not_sent_back' }
  | { kind: 'no_work' }
  | { kind: 'skipped_by_dependency' }
  | { kind: 'not_with_person' }
  | { kind: 'no_worktree' };

export function humanActionRefusal(task: Omit<DecidableTask, 'id'>, action: HumanAction): HumanActionRefusal | undefined {
  if (!TaskStateMachine.canApply(task.state, humanActionEvent(task.state, action))) return { kind: 'state' };
  if (action === 'continue' && task.state === 'NEEDS_HUMAN') {
    if (task.withPerson === undefined) return { kind: 'not_with_person' };
    if (task.worktreePath === undefined) return { kind: 'no_worktree' };
  }
  if (action === 'accept' && task.queueProblem !== undefined) return { kind: 'sent_back' };
  if (action === 'accept' && task.changedFiles.length === 0) return { kind: 'no_work' };
  if (action === 'resolve' && task.queueProblem === undefined) return { kind: 'not_sent_back' };
  if (action === 'retry' && task.state === 'SKIPPED' && task.skippedByDependency) return { kind: 'skipped_by_dependency' };
  return undefined;
}

/** What a person may decide about the task now: the one place the engine, the CLI and the editor ask. */
export function allowedHumanActions(task: Omit<DecidableTask, 'id'>): HumanAction[] {
  return ORDER.filter((action) => humanActionRefusal(task, action) === undefined);
}

/** A human decision the task's state does not allow: bad input, not a bug. */
export class HumanDecisionError extends TaskloomError {
  override readonly name = 'HumanDecisionError';
  constructor(message: string, hint: string) {
    super('bad_input', message, hint, { code: 'decision_refused' });
  }
}

/** Throws HumanDecisionError, saying why and naming what the task does allow, when `action` is not one of them. */
export function assertHumanAction(task: DecidableTask, action: HumanAction): void {
  const refusal = humanActionRefusal(task, action);
  if (!refusal) return;
  const allowed = allowedHumanActions(task);
  const instead = allowed.length ? `What it allows: ${allowed.join(', ')}.` : 'Nothing is waiting for you on this task.';
  throw new HumanDecisionError(humanRefusalWords(task, action, refusal), instead);
}

/** "Task "a" produced no work to accept": a refusal in words, for the engine's error and the editor's message. */
export function humanRefusalWords(task: Pick<DecidableTask, 'id' | 'state'>, action: HumanAction, refusal: HumanActionRefusal): string {
  switch (refusal.kind) {
    case 'no_work':
      return `Task "${task.id}" produced no work to accept (its commits changed no file)`;
    case 'skipped_by_dependency':
      return `Task "${task.id}" was skipped because a task it depends on did not go green: it starts again by itself once that task is retried`;
    case 'not_with_person':
      return `Task "${task.id}" has nothing to hand back: nobody stopped it or took it over`;
    case 'no_worktree':
      return `Task "${task.id}" has nothing to hand back: it has no worktree`;
    default:
      return `Task "${task.id}" (${TASK_STATE_WORDS[task.state]}) cannot be ${PAST[action]} now`;
  }
}

const PAST: Record<HumanAction, string> = {
  retry: 'retried',
  accept: 'accepted',
  skip: 'skipped',
  resolve: 'resolved by hand',
  continue: 'continued (only a task being resolved by hand, or one a person stopped or took over, can)',
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
