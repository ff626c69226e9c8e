import type { Plan } from './plan';
import type { RunConfig } from './runConfig';
import type { TaskEvent, TaskState } from './taskStates';
import type { TokenUsage } from './usage';
import type { CriticVerdict } from './verdict';

export type AgentRole = 'planner' | 'actor' | 'critic';

/** Result of one gate command, with output already capped and redacted. */
export interface GateCommandResult {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  output: string;
}

export type RunEndStatus = 'completed' | 'needs_human' | 'paused' | 'cancelled' | 'failed';

/** The body of each event kind; `seq`, `runId` and `at` are added by the store. */
export type RunEventBody =
  | {
      type: 'run_created';
      goal: string;
      plan: Plan;
      config: RunConfig;
      repoRoot: string;
      baseCommit: string;
      baseRef: string;
      /** Uncommitted paths in the user's tree at start: the run works from the commit and ignores them. */
      ignoredChanges: string[];
      /** Host and pid of the process that created the run, so resume can tell a run made elsewhere. */
      createdBy: { host: string; pid: number };
    }
  /** A planner's draft (round 1, 2…); it replaces the plan while no task has started. */
  | { type: 'plan_proposed'; round: number; plan: Plan }
  | { type: 'plan_reviewed'; round: number; verdict: CriticVerdict; blocking: number }
  | { type: 'plan_approved'; by: 'human' | 'autopilot' }
  | {
      type: 'task_transition';
      taskId: string;
      event: TaskEvent;
      from: TaskState;
      to: TaskState;
      reason: string;
    }
  | {
      type: 'worktree_prepared';
      taskId: string;
      branch: string;
      path: string;
      /** The commit the task starts from: run base merged with its dependencies' branches. */
      baseCommit: string;
      fresh: boolean;
    }
  | { type: 'work_committed'; taskId: string; attempt: number; commit: string; filesChanged: string[] }
  /**
   * The task worktree exactly as it was before actor attempt `attempt` (uncommitted files included),
   * as a commit off the task branch's HEAD that no branch contains; `ref` keeps it from `git gc`.
   */
  | { type: 'actor_snapshot'; taskId: string; attempt: number; commit: string; ref: string }
  | {
      type: 'gate_result';
      /** A task id, or null for the integration gate. */
      taskId: string | null;
      attempt: number;
      passed: boolean;
      commands: GateCommandResult[];
    }
  | { type: 'critic_verdict'; taskId: string; review: number; verdict: CriticVerdict; blocking: number }
  | {
      type: 'runner_call';
      taskId: string | null;
      role: AgentRole;
      agent: string;
      model: string;
      status: RunnerStatus;
      usage: TokenUsage;
      durationMs: number;
      quotaHit: boolean;
      sessionId?: string;
      /** The call continued an earlier conversation (`sessionId` is the one continued). */
      resumed?: boolean;
      /** Last lines of the agent's output, kept for a human when the call did not succeed. */
      detail?: string;
    }
  | { type: 'human_decision'; taskId: string; action: 'retry' | 'accept' | 'skip'; note?: string }
  | { type: 'integration_prepared'; branch: string; path: string }
  | { type: 'merge_done'; taskId: string; commit: string; alreadyMerged: boolean }
  | { type: 'merge_conflict'; taskId: string; files: string[] }
  | { type: 'run_paused'; reason: string }
  | { type: 'run_resumed'; reason: string }
  | { type: 'run_finished'; status: RunEndStatus; summary: string }
  | { type: 'warning'; message: string; taskId?: string };

export type RunnerStatus =
  | 'ok'
  | 'agent_error'
  | 'quota'
  | 'auth'
  | 'max_turns'
  | 'cancelled'
  | 'idle_timeout'
  | 'crashed'
  | 'spawn_failed';

export type RunEventType = RunEventBody['type'];

export type RunEvent = RunEventBody & { seq: number; runId: string; at: string };

export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
