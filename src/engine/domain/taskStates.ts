/** Where a task is in its loop. The ends are GREEN, UNVERIFIED_BY_CRITIC, NEEDS_HUMAN, SKIPPED and CANCELLED. */
export const TASK_STATES = [
  'PENDING',
  'BUILDING',
  'GATING',
  'MECHANICAL_FAILED',
  'CRITIC_REVIEWING',
  'CHANGES_REQUIRED',
  'GREEN',
  'UNVERIFIED_BY_CRITIC',
  'NEEDS_HUMAN',
  'SKIPPED',
  'CANCELLED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** What happened to a task. Each one, applied to a state, gives the next state or is illegal. */
export const TASK_EVENTS = [
  'BUILD_STARTED',
  'BUILD_FINISHED',
  'MECHANICAL_PASSED',
  'MECHANICAL_FAILED',
  'RETRY_BUILD',
  'CRITIC_GREEN',
  'CRITIC_CHANGES_REQUIRED',
  'CRITIC_UNAVAILABLE',
  'MALFORMED_GIVEUP',
  'AGENT_FAILED',
  'ENGINE_ERROR',
  'EXCEEDED_LIMIT',
  'STUCK_ABORTED',
  'QUOTA_EXHAUSTED',
  'DEPENDENCY_FAILED',
  'DEPENDENCY_RETRIED',
  'INTERRUPTED',
  'CANCELLED',
  'HUMAN_RETRY',
  'HUMAN_ACCEPTED',
  'HUMAN_SKIPPED',
] as const;
export type TaskEvent = (typeof TASK_EVENTS)[number];

/** States in which a task's actor, gate or critic is (or was, before a crash) working. */
export const IN_FLIGHT_STATES: readonly TaskState[] = [
  'BUILDING',
  'GATING',
  'MECHANICAL_FAILED',
  'CRITIC_REVIEWING',
  'CHANGES_REQUIRED',
];

/** States after which the scheduler has nothing more to do for the task. */
export const SETTLED_STATES: readonly TaskState[] = [
  'GREEN',
  'UNVERIFIED_BY_CRITIC',
  'NEEDS_HUMAN',
  'SKIPPED',
  'CANCELLED',
];

/** States whose work dependents may build on. */
export const SATISFIED_STATES: readonly TaskState[] = ['GREEN', 'UNVERIFIED_BY_CRITIC'];

export const isInFlight = (state: TaskState): boolean => IN_FLIGHT_STATES.includes(state);
export const isSettled = (state: TaskState): boolean => SETTLED_STATES.includes(state);
export const isSatisfied = (state: TaskState): boolean => SATISFIED_STATES.includes(state);
