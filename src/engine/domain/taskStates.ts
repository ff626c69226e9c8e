/**
 * Where a task is, in the order a task meets them (work under way before its setbacks), which is
 * also how legends list them. A task is done when it is MERGED into the run's integration branch
 * (or SKIPPED): GREEN only means its own gate and critic passed and it waits in the merge queue.
 */
export const TASK_STATES = [
  'PENDING',
  'BUILDING',
  'GATING',
  'CRITIC_REVIEWING',
  'MECHANICAL_FAILED',
  'CHANGES_REQUIRED',
  'GREEN',
  'UNVERIFIED_BY_CRITIC',
  'MERGING',
  'MERGED',
  'MERGE_CONFLICT',
  'RESOLVING',
  'INTEGRATION_FAILED',
  'HUMAN_RESOLVING',
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
  /** The worktree's setup commands failed before the actor started: not the task's fault, nor a gate failure. */
  'SETUP_FAILED',
  'QUOTA_EXHAUSTED',
  'DEPENDENCY_FAILED',
  'DEPENDENCY_RETRIED',
  'INTERRUPTED',
  'CANCELLED',
  'MERGE_STARTED',
  'MERGE_VERIFIED',
  'MERGE_CONFLICTED',
  'INTEGRATION_GATE_FAILED',
  'RESOLVE_STARTED',
  'REQUEUED',
  'HAND_RESOLVE_STARTED',
  'HAND_RESOLVED',
  'HUMAN_RETRY',
  'HUMAN_ACCEPTED',
  'HUMAN_SKIPPED',
  /** The pick of a task's candidates waits for a person to go on with it or choose another (`candidates.confirmPick`). */
  'PICK_HELD',
  /** The critic approved, but the change touches sensitive paths nobody released: a human decides. */
  'SENSITIVE_PATHS_TOUCHED',
  /** A person stopped the task's work under way (its agent, gate or critic); the rest of the run goes on. */
  'HUMAN_STOPPED',
  /** A person works on the task themselves, in its worktree (the agent's own session, resumed). */
  'HUMAN_TOOK_OVER',
  /** A person hands the task's worktree back: what is there is gated and reviewed like an actor's attempt. */
  'HANDED_BACK',
  /** A person's message reached no actor turn before the review: the task goes back to its actor for it (not a critic's request). */
  'MESSAGE_SENT_BACK',
] as const;
export type TaskEvent = (typeof TASK_EVENTS)[number];

/** States in which a task's actor (or resolver), gate or critic is working: each holds one of the run's slots. */
export const IN_FLIGHT_STATES: readonly TaskState[] = [
  'BUILDING',
  'GATING',
  'MECHANICAL_FAILED',
  'CRITIC_REVIEWING',
  'CHANGES_REQUIRED',
  'RESOLVING',
];

/** Approved on its branch and waiting for (or inside) the merge queue. */
export const QUEUED_STATES: readonly TaskState[] = ['GREEN', 'UNVERIFIED_BY_CRITIC', 'MERGING'];

/** Sent back by the merge queue; an agent takes it up again as soon as a slot is free. */
export const RETURNED_STATES: readonly TaskState[] = ['MERGE_CONFLICT', 'INTEGRATION_FAILED'];

/** Waiting for a person: nothing happens to the task until they decide. */
export const WAITING_FOR_HUMAN_STATES: readonly TaskState[] = ['NEEDS_HUMAN', 'HUMAN_RESOLVING'];

/** The task's part of the run is over: merged into integration, or deliberately left out. */
export const DONE_STATES: readonly TaskState[] = ['MERGED', 'SKIPPED'];

/** States after which nothing more happens to the task without a person. */
export const SETTLED_STATES: readonly TaskState[] = ['MERGED', 'NEEDS_HUMAN', 'HUMAN_RESOLVING', 'SKIPPED', 'CANCELLED'];

/** Only merged work is built on: a dependent starts from the integration branch that holds it. */
export const SATISFIED_STATES: readonly TaskState[] = ['MERGED'];

export const isInFlight = (state: TaskState): boolean => IN_FLIGHT_STATES.includes(state);
export const isQueued = (state: TaskState): boolean => QUEUED_STATES.includes(state);
export const isReturned = (state: TaskState): boolean => RETURNED_STATES.includes(state);
export const isWaitingForHuman = (state: TaskState): boolean => WAITING_FOR_HUMAN_STATES.includes(state);
export const isDone = (state: TaskState): boolean => DONE_STATES.includes(state);
export const isSettled = (state: TaskState): boolean => SETTLED_STATES.includes(state);
export const isSatisfied = (state: TaskState): boolean => SATISFIED_STATES.includes(state);

/** The task will move on by itself (an agent, a gate or the merge queue has work for it), without a person. */
export const isMovingOn = (state: TaskState): boolean =>
  state === 'PENDING' || isInFlight(state) || isQueued(state) || isReturned(state);
