import { TASK_EVENTS, TASK_STATES, type TaskEvent, type TaskState } from './taskStates';

type Table = Partial<Record<TaskState, Partial<Record<TaskEvent, TaskState>>>>;

const ABORTS = {
  STUCK_ABORTED: 'NEEDS_HUMAN',
  AGENT_FAILED: 'NEEDS_HUMAN',
  ENGINE_ERROR: 'NEEDS_HUMAN',
  EXCEEDED_LIMIT: 'NEEDS_HUMAN',
  SETUP_FAILED: 'NEEDS_HUMAN',
  HUMAN_STOPPED: 'NEEDS_HUMAN',
  QUOTA_EXHAUSTED: 'PENDING',
  INTERRUPTED: 'PENDING',
  CANCELLED: 'CANCELLED',
  REQUEUED: 'GREEN',
} as const satisfies Partial<Record<TaskEvent, TaskState>>;

/** What a person can do to a task the merge queue sent back, or that waits for them. */
const HUMAN_WAYS_OUT = {
  HUMAN_RETRY: 'PENDING',
  HUMAN_SKIPPED: 'SKIPPED',
  HAND_RESOLVE_STARTED: 'HUMAN_RESOLVING',
} as const satisfies Partial<Record<TaskEvent, TaskState>>;

/**
 * The whole task lifecycle as one table: state → event → next state. Anything not in the
 * table is illegal. QUOTA_EXHAUSTED and INTERRUPTED return a task to PENDING because the
 * run pauses (or crashed) and the task is started again on resume; REQUEUED returns a task
 * that had passed its gate and critic to the merge queue with that approved work (a stop
 * while it was being merged, resolved or fixed discards only what was not yet approved).
 */
const TRANSITIONS: Table = {
  PENDING: {
    BUILD_STARTED: 'BUILDING',
    RESOLVE_STARTED: 'RESOLVING',
    DEPENDENCY_FAILED: 'SKIPPED',
    ENGINE_ERROR: 'NEEDS_HUMAN',
    EXCEEDED_LIMIT: 'NEEDS_HUMAN',
    CANCELLED: 'CANCELLED',
  },
  // PICK_HELD: a task built as candidates waits for a person to confirm the pick before its gate and review.
  BUILDING: { BUILD_FINISHED: 'GATING', PICK_HELD: 'NEEDS_HUMAN', ...ABORTS },
  RESOLVING: { BUILD_FINISHED: 'GATING', ...ABORTS },
  GATING: { MECHANICAL_PASSED: 'CRITIC_REVIEWING', MECHANICAL_FAILED: 'MECHANICAL_FAILED', ...ABORTS },
  MECHANICAL_FAILED: { RETRY_BUILD: 'BUILDING', ...ABORTS },
  CRITIC_REVIEWING: {
    CRITIC_GREEN: 'GREEN',
    CRITIC_CHANGES_REQUIRED: 'CHANGES_REQUIRED',
    MESSAGE_SENT_BACK: 'CHANGES_REQUIRED',
    CRITIC_UNAVAILABLE: 'UNVERIFIED_BY_CRITIC',
    MALFORMED_GIVEUP: 'NEEDS_HUMAN',
    SENSITIVE_PATHS_TOUCHED: 'NEEDS_HUMAN',
    ...ABORTS,
  },
  CHANGES_REQUIRED: { RETRY_BUILD: 'BUILDING', ...ABORTS },
  GREEN: { MERGE_STARTED: 'MERGING', HUMAN_SKIPPED: 'SKIPPED', ENGINE_ERROR: 'NEEDS_HUMAN' },
  UNVERIFIED_BY_CRITIC: {
    MERGE_STARTED: 'MERGING',
    HUMAN_ACCEPTED: 'GREEN',
    HUMAN_RETRY: 'PENDING',
    HUMAN_SKIPPED: 'SKIPPED',
    ENGINE_ERROR: 'NEEDS_HUMAN',
  },
  MERGING: {
    MERGE_VERIFIED: 'MERGED',
    MERGE_CONFLICTED: 'MERGE_CONFLICT',
    INTEGRATION_GATE_FAILED: 'INTEGRATION_FAILED',
    REQUEUED: 'GREEN',
    ENGINE_ERROR: 'NEEDS_HUMAN',
  },
  MERGE_CONFLICT: { RESOLVE_STARTED: 'RESOLVING', EXCEEDED_LIMIT: 'NEEDS_HUMAN', ENGINE_ERROR: 'NEEDS_HUMAN', ...HUMAN_WAYS_OUT },
  INTEGRATION_FAILED: {
    RETRY_BUILD: 'BUILDING',
    MERGE_CONFLICTED: 'MERGE_CONFLICT',
    EXCEEDED_LIMIT: 'NEEDS_HUMAN',
    ENGINE_ERROR: 'NEEDS_HUMAN',
    ...HUMAN_WAYS_OUT,
  },
  HUMAN_RESOLVING: { HAND_RESOLVED: 'GREEN', HUMAN_RETRY: 'PENDING', HUMAN_SKIPPED: 'SKIPPED' },
  // Taken over, the task still waits for the person (nothing moves it on) until they hand it back.
  NEEDS_HUMAN: { ...HUMAN_WAYS_OUT, HUMAN_ACCEPTED: 'GREEN', CANCELLED: 'CANCELLED', HUMAN_TOOK_OVER: 'NEEDS_HUMAN', HANDED_BACK: 'PENDING' },
  SKIPPED: { DEPENDENCY_RETRIED: 'PENDING', HUMAN_RETRY: 'PENDING' },
  CANCELLED: { HUMAN_RETRY: 'PENDING', INTERRUPTED: 'PENDING', REQUEUED: 'GREEN' },
  MERGED: {},
};

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: TaskState,
    readonly event: TaskEvent,
    readonly taskId?: string,
  ) {
    super(`Illegal task transition${taskId ? ` for task "${taskId}"` : ''}: ${event} is not allowed in state ${from}`);
    this.name = 'IllegalTransitionError';
  }
}

export const TaskStateMachine = {
  /** The state `event` leads to from `from`; throws IllegalTransitionError when the table has no such edge. */
  next(from: TaskState, event: TaskEvent, taskId?: string): TaskState {
    const to = TRANSITIONS[from]?.[event];
    if (!to) throw new IllegalTransitionError(from, event, taskId);
    return to;
  },

  canApply(from: TaskState, event: TaskEvent): boolean {
    return TRANSITIONS[from]?.[event] !== undefined;
  },

  /** Every legal (from, event, to) triple, for documentation and exhaustive tests. */
  edges(): Array<{ from: TaskState; event: TaskEvent; to: TaskState }> {
    return TASK_STATES.flatMap((from) =>
      TASK_EVENTS.flatMap((event) => {
        const to = TRANSITIONS[from]?.[event];
        return to ? [{ from, event, to }] : [];
      }),
    );
  },
};
