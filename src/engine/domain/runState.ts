import type { AgentRole, GateCommandResult, RunEndStatus } from './events';
import type { Plan } from './plan';
import type { RunConfig } from './runConfig';
import type { TaskEvent, TaskState } from './taskStates';
import type { TokenUsage } from './usage';
import type { CriticVerdict } from './verdict';

export const RUN_STATUSES = [
  'planning',
  'running',
  'paused',
  'integrating',
  'completed',
  'needs_human',
  'cancelled',
  'failed',
] as const satisfies readonly (RunEndStatus | 'planning' | 'running' | 'integrating')[];
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface TransitionRecord {
  seq: number;
  at: string;
  from: TaskState;
  to: TaskState;
  event: TaskEvent;
  reason: string;
}

export interface AttemptRecord {
  /** 1-based within the task's current try (a crash or a human retry starts a new try). */
  number: number;
  startedAt: string;
  endedAt?: string;
  outcome?: string;
  commit?: string;
}

export interface GateSummary {
  passed: boolean;
  at: string;
  commands: GateCommandResult[];
}

export interface TaskView {
  id: string;
  title: string;
  dependsOn: string[];
  state: TaskState;
  lastReason: string;
  transitions: TransitionRecord[];
  attempts: AttemptRecord[];
  /** Builds in the current try; the scripted agent and the prompts count from here. */
  attempt: number;
  gateFailures: number;
  reviewCycles: number;
  branch?: string;
  worktreePath?: string;
  baseCommit?: string;
  /** Set when the task must start again from a clean worktree (after a crash or cancel). */
  needsFreshWorktree: boolean;
  /** The human's note from the latest retry, handed to the actor. */
  humanNote?: string;
  acceptedByHuman: boolean;
  /** True when SKIPPED because a dependency did not go green (not by a human). */
  skippedByDependency: boolean;
  lastGate?: GateSummary;
  lastVerdict?: CriticVerdict;
  /** In the current try: in how many reviews each blocking finding (by fingerprint) came back. */
  findingRepeats: Record<string, number>;
  /** The actor's conversation in the current try, continued on retries so context is not paid for twice. */
  actorSessionId?: string;
  usage: TokenUsage;
  startedAt?: string;
  finishedAt?: string;
}

export type DecisionKind = 'plan' | 'gate' | 'critic' | 'human' | 'merge' | 'conflict' | 'integration' | 'run';

export interface Decision {
  seq: number;
  at: string;
  kind: DecisionKind;
  taskId?: string;
  summary: string;
  details?: string[];
}

export interface UsageSummary {
  total: TokenUsage;
  byRole: Partial<Record<AgentRole, TokenUsage>>;
  byTask: Record<string, TokenUsage>;
  calls: number;
}

export interface IntegrationView {
  branch?: string;
  path?: string;
  merged: string[];
  conflicts: Array<{ taskId: string; files: string[] }>;
  lastGate?: GateSummary;
}

export interface RunState {
  runId: string;
  goal: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  repoRoot: string;
  baseCommit: string;
  baseRef: string;
  ignoredChanges: string[];
  createdBy: { host: string; pid: number };
  config: RunConfig;
  plan: Plan;
  planApproved: boolean;
  taskOrder: string[];
  tasks: Record<string, TaskView>;
  decisions: Decision[];
  usage: UsageSummary;
  integration: IntegrationView;
  pausedReason?: string;
  finishedSummary?: string;
  warnings: string[];
  lastSeq: number;
}
