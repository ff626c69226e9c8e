import type { NextStep } from '../domain/nextStep';
import type { RunStatus } from '../domain/runState';
import { RUN_STATUS_WORDS, TASK_STATE_WORDS } from '../domain/stateWords';
import type { TaskState } from '../domain/taskStates';
import { TaskloomError } from '../domain/taskloomError';
import { baselineChoiceWords } from '../text/gateWords';
import { noMessagesWords } from '../text/messageWords';
import type { BackgroundWork } from './frontDoor';

// The refusals of the use cases, each with its code (domain/taskloomError.ts): every front door
// gets the same error for the same case and words or acts on it its own way.

/** No run was named and there is none to take: nothing here, or nothing left unfinished. */
export class NoRunError extends TaskloomError {
  override readonly name = 'NoRunError';
  constructor(message: string) {
    super('bad_input', message, 'Start a run from a goal or a plan, or look at the runs here.', { code: 'no_run', next: [{ kind: 'startFromPlanFile' }, { kind: 'listRuns' }] });
  }
}

export class UnknownTaskError extends TaskloomError {
  override readonly name = 'UnknownTaskError';
  constructor(runId: string, taskId: string, tasks: readonly string[]) {
    super('bad_input', `Run ${runId} has no task "${taskId}"`, `Its tasks: ${tasks.join(', ') || 'none yet'}.`, { code: 'unknown_task' });
  }
}

/** A change to a run this front door plans or drives in the background right now. */
export class RunBusyError extends TaskloomError {
  override readonly name = 'RunBusyError';
  constructor(runId: string, work: BackgroundWork) {
    super(
      'bad_input',
      work === 'planning' ? `Run ${runId} is still being planned` : `Run ${runId} is running`,
      work === 'planning' ? 'Wait for the plan, or cancel the run.' : 'Wait for it to stop, or cancel it first.',
      { code: 'run_busy' },
    );
  }
}

export class RunCompletedError extends TaskloomError {
  override readonly name = 'RunCompletedError';
  constructor(readonly runId: string) {
    super('bad_input', `Run ${runId} already completed; there is nothing to resume`, undefined, { code: 'run_completed' });
  }
}

/**
 * A run that never had an approved plan is not resumed but started again (domain/resumeOutlook.ts):
 * planned again, or from its plan (`withPlan`) or the planner's rejected answer, once fixed.
 */
export class StartAgainError extends TaskloomError {
  override readonly name = 'StartAgainError';
  constructor(
    readonly runId: string,
    why: string,
    readonly withPlan: boolean,
  ) {
    super('bad_input', `Run ${runId} cannot be resumed: ${why}`, 'A plan nobody approved never starts by itself: plan the goal again, or start a run from its plan.', { code: 'start_again' });
  }
}

export class NotCancellableError extends TaskloomError {
  override readonly name = 'NotCancellableError';
  constructor(runId: string, status: RunStatus) {
    super('bad_input', `Run ${runId} is not being planned or driven (it is ${RUN_STATUS_WORDS[status]})`, 'Only a running run can be cancelled.', { code: 'not_cancellable' });
  }
}

export class NoPlanWaitingError extends TaskloomError {
  override readonly name = 'NoPlanWaitingError';
  constructor(message: string, hint: string, next: readonly NextStep[] = []) {
    super('bad_input', message, hint, { code: 'no_plan_waiting', next });
  }
}

/** Planning stopped because someone cancelled it; the run ended cancelled. */
export class PlanningCancelledError extends TaskloomError {
  override readonly name = 'PlanningCancelledError';
  constructor(runId: string) {
    super('bad_input', `Planning of run ${runId} was cancelled; nothing was built`, undefined, { code: 'planning_cancelled' });
  }
}

/** A task the drive under way takes up next cannot be taken over by hand meanwhile. */
export class TaskTakenUpError extends TaskloomError {
  override readonly name = 'TaskTakenUpError';
  constructor(taskId: string, state: TaskState) {
    super('bad_input', `Task "${taskId}" is ${TASK_STATE_WORDS[state]}: its agent takes it up next`, 'Cancel the run first to resolve it yourself, or retry it with a note.', { code: 'task_taken_up' });
  }
}

/** A stop for a task whose work is not under way: there is nothing to stop. */
export class NothingToStopError extends TaskloomError {
  override readonly name = 'NothingToStopError';
  constructor(taskId: string, state: TaskState) {
    super('bad_input', `Task "${taskId}" has nothing to stop: it is ${TASK_STATE_WORDS[state]}`, 'Only a task whose agent, gate or critic is at work can be stopped.', { code: 'nothing_to_stop' });
  }
}

/** A take over of a task that neither works nor waits for a person, or has no worktree to work in. */
export class NothingToTakeOverError extends TaskloomError {
  override readonly name = 'NothingToTakeOverError';
  constructor(taskId: string, why: string) {
    super('bad_input', `Task "${taskId}" cannot be taken over: ${why}`, 'Only a task at work, or one that waits for you, can be taken over, in its worktree.', { code: 'nothing_to_take_over' });
  }
}

export class NoPullRequestError extends TaskloomError {
  override readonly name = 'NoPullRequestError';
  constructor(runId: string) {
    super('bad_input', `Run ${runId} has no pull request to watch`, 'Open one first.', { code: 'no_pull_request', next: [{ kind: 'openPullRequest', runId }] });
  }
}

/** A pull request `watch --pr` will not take on (a fork's, a closed one, or a reference that names none), and why. */
export class PullRequestNotWatchableError extends TaskloomError {
  override readonly name = 'PullRequestNotWatchableError';
  constructor(message: string, hint: string) {
    super('bad_input', message, hint, { code: 'pull_request_not_watchable' });
  }
}

/**
 * A plain resume of a run whose base fails a gate command that no runner explained: driven, it
 * would only pause there again. Refused instead, naming the ways on: treat the commands as
 * advisory or keep them as required (and resume), or cancel the run (`cancellable`: while it is paused).
 */
export class BaselineChoiceNeededError extends TaskloomError {
  override readonly name = 'BaselineChoiceNeededError';
  constructor(
    readonly runId: string,
    readonly commands: string[],
    cancellable: boolean,
  ) {
    super('bad_input', `Run ${runId} waits for your choice`, `${capitalised(baselineChoiceWords(commands))}.`, {
      code: 'baseline_choice_needed',
      next: [{ kind: 'treatAsAdvisory', runId, commands }, { kind: 'keepAsRequired', runId, commands }, ...(cancellable ? [{ kind: 'cancelRun' as const, runId }] : [])],
    });
  }
}

/** Treat as advisory or keep as required, for a run whose base fails nothing that waits for that choice. */
export class NoBaselineChoiceError extends TaskloomError {
  override readonly name = 'NoBaselineChoiceError';
  constructor(runId: string) {
    super('bad_input', `Nothing waits for a baseline choice in run ${runId}`, 'Only a gate command that fails on the run\'s base, where no test runner says which tests, can be treated as advisory or kept as required. Resume the run as it is.', {
      code: 'no_baseline_choice',
      next: [{ kind: 'resume', runId }],
    });
  }
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A message for a task that has no actor turn left to hear it (domain/taskMessages.ts). */
export class TaskTakesNoMessagesError extends TaskloomError {
  override readonly name = 'TaskTakesNoMessagesError';
  constructor(
    taskId: string,
    readonly state: TaskState,
  ) {
    super('bad_input', `Task "${taskId}" takes no messages now: ${noMessagesWords(state)}`, undefined, { code: 'task_takes_no_messages' });
  }
}

/** An issue opened by someone without write access starts a run only with a person's explicit confirmation of its text. */
export class UntrustedIssueError extends TaskloomError {
  override readonly name = 'UntrustedIssueError';
  constructor(
    readonly issue: string,
    readonly author: string,
    /** The goal that would be used, for the person to read before confirming. */
    readonly goal: string,
  ) {
    super('bad_input', `Issue ${issue} was opened by @${author}, who has no write access to the repository`, 'Read the goal it would give and confirm it to start: its text steers the agents.', { code: 'untrusted_issue' });
  }
}

/** A choice of candidate the task cannot take: it ran as one, has no such candidate (with work), or is past the point of choosing. */
export class CandidateChoiceError extends TaskloomError {
  override readonly name = 'CandidateChoiceError';
  constructor(message: string, hint: string) {
    super('bad_input', message, hint, { code: 'candidate_refused' });
  }
}
