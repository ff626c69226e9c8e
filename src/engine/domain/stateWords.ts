import type { RunnerStatus } from './events';
import type { RunStatus } from './runState';
import type { TaskState } from './taskStates';

/**
 * The one vocabulary for task states: the tree, the graph, the timeline, the status bar and the
 * CLI's summary name a state with these words, so a state reads the same wherever it is shown.
 */
export const TASK_STATE_WORDS: Record<TaskState, string> = {
  PENDING: 'pending',
  BUILDING: 'building',
  GATING: 'gating',
  MECHANICAL_FAILED: 'gate failed',
  CRITIC_REVIEWING: 'reviewing',
  CHANGES_REQUIRED: 'changes required',
  GREEN: 'approved, in merge queue',
  UNVERIFIED_BY_CRITIC: 'unreviewed, in merge queue',
  MERGING: 'merging',
  MERGED: 'merged',
  MERGE_CONFLICT: 'merge conflict',
  RESOLVING: 'resolving conflict',
  INTEGRATION_FAILED: 'integration gate failed',
  HUMAN_RESOLVING: 'resolving by hand',
  NEEDS_HUMAN: 'needs you',
  SKIPPED: 'skipped',
  CANCELLED: 'cancelled',
};

/** States in which a step is under way (an agent, the gate or a merge): only while an engine drives the run. */
export const RUNNING_STEP_STATES: ReadonlySet<TaskState> = new Set<TaskState>(['BUILDING', 'GATING', 'CRITIC_REVIEWING', 'RESOLVING', 'MERGING']);

/**
 * How an attempt ended, by the state it left the task in: the attempt's own outcome, not where
 * the task is now (an attempt the critic approved stays "approved" once its work is merged).
 */
const ATTEMPT_OUTCOME_WORDS: Record<TaskState, string> = {
  ...TASK_STATE_WORDS,
  GREEN: 'approved',
  UNVERIFIED_BY_CRITIC: 'not reviewed',
  NEEDS_HUMAN: 'stopped for you',
  PENDING: 'stopped',
};

/** "approved (critic: farewell is in)": how an attempt ended and why, as the tree and the transcript head it. */
export const attemptOutcomeWords = (outcome: { state: TaskState; reason: string }): string =>
  outcome.reason ? `${ATTEMPT_OUTCOME_WORDS[outcome.state]} (${outcome.reason})` : ATTEMPT_OUTCOME_WORDS[outcome.state];

/** A step under way when no engine drives the run any more was interrupted: a resume starts it again. */
export const isInterruptedStep = (state: TaskState, driven: boolean): boolean => !driven && RUNNING_STEP_STATES.has(state);

/** Where a task is shown: whether an engine drives its run now, and the run's status. */
export interface TaskRunContext {
  driven: boolean;
  status: RunStatus;
}

/**
 * A task its run never started because the run was cancelled first (at the plan's approval, or
 * before the task's turn): it waits for nothing, so it is not "pending".
 */
export const isNotStartedByCancel = (state: TaskState, run: Pick<TaskRunContext, 'status'>): boolean => state === 'PENDING' && run.status === 'cancelled';

/** The task's state in words: "interrupted" where nothing is running it, "not started" where its run was cancelled before it. */
export function taskStateWords(state: TaskState, run: TaskRunContext): string {
  if (isNotStartedByCancel(state, run)) return 'not started (run cancelled)';
  return isInterruptedStep(state, run.driven) ? `${TASK_STATE_WORDS[state]}, interrupted` : TASK_STATE_WORDS[state];
}

/** A run's status in the same vocabulary ("needs you", never "needs_human" or "needs human"). */
export const RUN_STATUS_WORDS: Record<RunStatus, string> = {
  planning: 'planning',
  running: 'running',
  integrating: 'merging',
  paused: 'paused',
  completed: 'completed',
  needs_human: 'needs you',
  cancelled: 'cancelled',
  failed: 'failed',
};

/** How an agent call ended, in words: "the actor failed: an agent error" rather than agent_error. */
export const RUNNER_STATUS_WORDS: Record<RunnerStatus, string> = {
  ok: 'done',
  agent_error: 'an agent error',
  quota: 'a usage limit',
  auth: 'not signed in',
  max_turns: 'its turn limit',
  cancelled: 'cancelled',
  idle_timeout: 'no activity',
  crashed: 'the agent crashed',
  spawn_failed: 'the agent could not start',
};
