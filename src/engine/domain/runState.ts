import type {
  AgentRole,
  ApplyHistory,
  CallPurpose,
  EventOf,
  GateCommandResult,
  MessageDelivery,
  MergeMethod,
  OverlapMode,
  OverlapPair,
  PullRequestReactionKind,
  PullRequestRedness,
  RunCounts,
  RunEndStatus,
  RunnerStatus,
  TranscriptLine,
} from './events';
import type { CandidatesView } from './candidates';
import type { DecisionFact } from './decisionFact';
import type { Plan } from './plan';
import type { RunConfig } from './runConfig';
import type { Confinement } from './sandboxSettings';
import type { SensitiveChange } from './sensitivePaths';
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

/** Statuses of a run an engine is working on: without one driving it, the run stopped mid-way. */
export const LIVE_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(['planning', 'running', 'integrating']);

/**
 * Statuses of a run that is over: completed, or cancelled by a person (who may still resume it by
 * name). Every other run is unfinished — Resume, Plan Again or a decision takes it on (a run that
 * failed on an engine error resumes), so "Resume last run" considers it and `gc` leaves what it holds.
 */
const OVER_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(['completed', 'cancelled']);
export const isRunOver = (status: RunStatus): boolean => OVER_RUN_STATUSES.has(status);

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
  /** The state the attempt ended in and why: data, so each view words it. */
  outcome?: { state: TaskState; reason: string };
  commit?: string;
  /** 'resolve': the attempt resolved a conflict with integration (absent: a build). */
  kind?: 'resolve';
}

export interface BaselineView {
  commit: string;
  tree: string;
  key: string;
  at: string;
  commands: GateCommandResult[];
  cached?: true;
  /** Failing base commands the user chose to treat as advisory for this run. */
  advisory: string[];
  /** Failing base commands the user chose to keep as checks the tasks must pass (a check of the work still to be done). */
  required: string[];
}

export interface CachedGate {
  seq: number;
  taskId: string | null;
  attempt: number;
  passed: boolean;
  commands: GateCommandResult[];
}

export interface GateSummary {
  passed: boolean;
  at: string;
  commands: GateCommandResult[];
  /** Integration gate: the commit it ran on and the batch's tasks that commit holds (absent in 0.1 logs). */
  commit?: string;
  taskIds?: string[];
  /** A task's gate: the tree it ran on, and its attempt. */
  tree?: string;
  attempt?: number;
  /** Served from the gate with the same key (see RunState.gateCache), not run again. */
  cachedFrom?: { seq: number; taskId: string | null; attempt: number };
}

/** Why the merge queue sent a task back: what its agent (or a person) must deal with before it can merge. */
export type QueueProblem =
  | { kind: 'conflict'; files: string[] }
  /** The integration gate failed on the batch up to and including this task's merge. */
  | { kind: 'integration_gate'; gate: GateSummary };

/** A conflict being resolved in the task's worktree: the merge of `theirs` (integration) into `ours` (the task's approved work). */
export interface ResolutionContext {
  files: string[];
  ours: string;
  theirs: string;
}

/** One agent call made for a task, as its `runner_call` recorded it (see domain/taskTimings.ts). */
export interface AgentCallRecord {
  seq: number;
  at: string;
  role: AgentRole;
  status: RunnerStatus;
  durationMs: number;
  /** The task's state when the call ended: BUILDING, RESOLVING, CRITIC_REVIEWING… (MERGED: a pull request's fix). */
  during: TaskState;
  /** The seq of its transcript (TranscriptRecord.seq), when it printed anything. */
  transcript?: number;
}

/**
 * One agent call's transcript, as far as the state keeps it: where its batches are in the log
 * and its newest line. The lines themselves stay in the log (agent_transcript events), read by
 * seq when someone looks (the engine's TranscriptRequest), so a long run's state does not carry
 * every line its agents printed.
 */
export interface TranscriptRecord {
  /** The seq of the call's first batch: the call's id. */
  seq: number;
  /** When the first batch was written (about when the call started printing). */
  at: string;
  role: AgentRole;
  /** As RunnerInput: the actor's attempt (its resolution when resolving), the critic's review, the planner's round. */
  attempt: number;
  purpose?: CallPurpose;
  /** The candidate whose actor made the call. */
  candidate?: number;
  /** The task's attempt (its index in TaskView.attempts) in progress when the call started. */
  attemptIndex?: number;
  /** Seqs of the call's batches, oldest first. */
  batches: number[];
  /** Lines in the log, and lines left out past the per-call cap. */
  lines: number;
  omitted: number;
  /** The newest line kept. */
  last?: TranscriptLine;
  updatedAt: string;
  /** Set by the call's runner_call: how it ended. `interrupted`: the process stopped during the call (set at resume). */
  ended?: RunnerStatus | 'interrupted';
}

/** One run of a task's gate: how long its commands took together. */
export interface GateRunRecord {
  seq: number;
  at: string;
  attempt: number;
  passed: boolean;
  durationMs: number;
}

/** A stretch in which no process drove the run: from its end (or its last event, when the process died) to the resume. */
export interface RunStop {
  from: string;
  /** Absent while the run stays ended. */
  to?: string;
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
  /** Critic verdicts in the current try, green ones included (a resolution is reviewed again). */
  reviewsDone: number;
  branch?: string;
  worktreePath?: string;
  baseCommit?: string;
  /** Set when the task must start again from a clean worktree (after a crash or cancel). */
  needsFreshWorktree: boolean;
  /** The worktree is new (or its setup failed or was stopped) and its setup has not passed since: it runs before the next agent. */
  needsSetup?: boolean;
  /** TASKLOOM_PORT: a free TCP port for the task's dev servers, the same for all its steps and after a resume. */
  port?: number;
  /** Waiting for a person because they stopped the task's work, or took it over: what they may hand back. */
  withPerson?: 'stopped' | 'taken_over';
  /** The human's note from the latest retry, handed to the actor. */
  humanNote?: string;
  acceptedByHuman: boolean;
  /** True when SKIPPED because a dependency did not go green (not by a human). */
  skippedByDependency: boolean;
  lastGate?: GateSummary;
  lastVerdict?: CriticVerdict;
  /** The critic_verdict event that gave `lastVerdict`: its ledger entry, which its findings link to. */
  lastVerdictSeq?: number;
  /** The commit that last passed the task's gate and critic (what the merge queue merges). */
  greenCommit?: string;
  /** Files the task's commits changed in its current try. */
  changedFiles: string[];
  /** Set while the merge queue has sent the task back (a conflict or a failed integration gate). */
  queueProblem?: QueueProblem;
  /** Set while a conflict with integration is being resolved in the task's worktree. */
  resolution?: ResolutionContext;
  /** Resolutions started; like `attempt`, the numbering goes on across a human's retry. */
  resolutions: number;
  /** Conflicts with integration met in the current try (each one is resolved by an agent, up to the attempt limit). */
  mergeConflicts: number;
  /** The merge commit that put the task into the integration branch. */
  mergeCommit?: string;
  /** The critic could not be reached (UNVERIFIED_BY_CRITIC) for the work being merged. */
  unverified: boolean;
  /** The tasks the integration branch held when this task's worktree was made (or last took in integration). */
  builtOnMerged: string[];
  /** Other tasks whose changed files this task's change met, while they ran or after they merged. */
  overlapWarnings: Array<{ otherTaskId: string; files: string[] }>;
  /** In the current try: in how many reviews each blocking finding (by fingerprint) came back. */
  findingRepeats: Record<string, number>;
  /** The actor's conversation in the current try, continued on retries so context is not paid for twice. */
  actorSessionId?: string;
  /** The agent whose session that is: a session is only resumed by the agent that holds it. */
  actorSessionAgent?: string;
  usage: TokenUsage;
  /** Every agent call and gate run of the task, over all its tries: where its time went. */
  calls: AgentCallRecord[];
  gateRuns: GateRunRecord[];
  /** The transcripts of its agent calls that printed anything, oldest first. */
  transcripts: TranscriptRecord[];
  /** The sensitive changes the task waits on a human for (sensitive_held), until a decision. */
  sensitiveHeld?: SensitiveChange[];
  /** Sensitive paths a human accepted for this task: they do not hold it again. */
  sensitiveApproved?: string[];
  /** What people said to the task's actor while it worked (taskloom send), oldest first; those not yet delivered wait for it. */
  messages: TaskMessage[];
  /** The task's candidates, when it ran as several (run/candidates.ts); absent for a task run as one. */
  candidates?: CandidatesView;
  startedAt?: string;
  finishedAt?: string;
}

/** A person's message for a task's actor, and whether it reached the actor yet. */
export interface TaskMessage {
  id: string;
  seq: number;
  at: string;
  from: string;
  text: string;
  delivered?: { how: MessageDelivery; attempt: number; at: string };
}

export type DecisionKind = 'plan' | 'gate' | 'critic' | 'human' | 'merge' | 'conflict' | 'integration' | 'queue' | 'overlap' | 'pull_request' | 'run';

export interface Decision {
  seq: number;
  at: string;
  kind: DecisionKind;
  taskId?: string;
  /** What was decided, as data: views word it with wordDecision (text/decisionWords.ts). */
  fact: DecisionFact;
}

export interface UsageSummary {
  total: TokenUsage;
  byRole: Partial<Record<AgentRole, TokenUsage>>;
  /** By the agent that made the calls (`claude`, `codex`…): a run may use a different one per role. */
  byAgent: Record<string, TokenUsage>;
  byTask: Record<string, TokenUsage>;
  calls: number;
}

export interface IntegrationView {
  branch?: string;
  path?: string;
  /** Tasks in the integration branch, in the order they were merged. */
  merged: string[];
  /** Tasks whose merge conflicts with integration and that are not resolved yet. */
  conflicts: Array<{ taskId: string; files: string[] }>;
  /** The integration branch's commit after the last verified merge. */
  head?: string;
  lastGate?: GateSummary;
  /** The last integration gate that failed: after a bisection, the one that names the culprit. */
  lastFailedGate?: GateSummary;
  /** Merge queue batches started. */
  batches: number;
  /** Each batch as it happened, oldest first: when it started and the integration gates run on it (the timeline's integration row). */
  batchRecords: QueueBatchRecord[];
  /** Overlaps predicted from the plan's files hints, and the mode the run treats them with. */
  overlapMode: OverlapMode;
  overlaps: OverlapPair[];
  /** The overlaps were predicted (once, before the first task started). */
  overlapsPredicted: boolean;
}

export interface QueueBatchRecord {
  /** 0 for an integration gate outside the queue's batches (a 0.1 log's one gate at the end). */
  batch: number;
  taskIds: string[];
  startedAt: string;
  gates: Array<{ seq: number; at: string; passed: boolean; durationMs: number }>;
}

/**
 * Bumped whenever what the projection derives changes shape: a snapshot made by another
 * version is not replayed onto, the run is rebuilt from its log instead.
 */
export const PROJECTION_VERSION = 14;

export interface PullRequestReaction {
  id: number;
  kind: PullRequestReactionKind;
  signals: string[];
  headSha: string;
  taskIds: Array<string | null>;
  summary: string;
  status: 'running' | 'pushed' | 'failed';
  /** Set once the fix is on the forge (before the replies are posted). */
  pushed?: { commit: string; commits: number };
  /** Review comments already answered. */
  replied: string[];
  /** The gate's last result on the fix. */
  gate?: { passed: boolean; commands: GateCommandResult[] };
  reason?: string;
}

export interface PullRequestRecord {
  number: number;
  url: string;
  head: string;
  base: string;
  repo: string;
  remote: string;
  /** What `watch` last saw. */
  observed?: Omit<EventOf<'pr_observed'>, 'type' | 'seq' | 'runId' | 'v'>;
  reactions: PullRequestReaction[];
  /** How the last `watch` ended, if it did and the head has not moved since (`headSha`: the head it ended at, when seen). */
  watch?: { outcome: EventOf<'pr_watch_ended'>['outcome']; reason: string; at: string; headSha?: string };
  /**
   * Where each kind's fix budget counts from: the last reaction id before the pull request was last
   * seen recovered from it (checks all passing at a head, approved, mergeable), or before a person
   * moved a head that was handed to them. Fixes of a kind count only after it (absent: since the start).
   */
  rearmed?: Partial<Record<PullRequestReactionKind, number>>;
  /** Red since `since` at `headSha` (failing checks, or a conflict with the base), until it is seen not red or at another head. */
  red?: { headSha: string; since: string; red: PullRequestRedness; failing: string[]; escalated?: true };
  /** Taskloom merged it (`watch --auto-merge`). */
  mergedByTaskloom?: { method: MergeMethod; commit: string; approvedBy: string[]; at: string };
  /** What `watch` left alone, and why (absent until it left something). */
  ignored?: IgnoredInput[];
  /** A person's own pull request `watch --pr` keeps green: Taskloom did not open it, and pushes only fixes to its branch. */
  adopted?: true;
}

export type IgnoredInput = Omit<EventOf<'pr_input_ignored'>, 'type' | 'seq' | 'runId' | 'v' | 'number'>;

export interface RunState {
  projectionVersion: number;
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
  /** Who approved the plan (absent in snapshots written before it was kept): only a human's approval releases its `sensitive` lists. */
  planApprovedBy?: 'human' | 'autopilot';
  /** The planner drafted the plan (plan_proposed), rather than a person handing it in. */
  planDraftedByAgent?: boolean;
  taskOrder: string[];
  tasks: Record<string, TaskView>;
  decisions: Decision[];
  usage: UsageSummary;
  integration: IntegrationView;
  pausedReason?: string;
  /** The gate on the run's base (absent until it ran, or with the baseline off), and the commands the user made advisory. */
  baseline?: BaselineView;
  /** Every gate result by its key (gate/gateCacheKey.ts): a gate with a key already here is served this, not run. */
  gateCache: Record<string, CachedGate>;
  /** Tests the integration gate found newly failing that narrower task gates had not run. */
  missedRegressions: number;
  /** How the latest session of the run started its processes; absent before a session recorded it. */
  confinement?: Confinement;
  finishedSummary?: string;
  finishedCounts?: RunCounts;
  /** Planning failed: the planner's last answer, for a person to open, fix and start a run from. */
  rejectedPlan?: string;
  /** The forge issue the run's goal came from (`taskloom run --issue`): its pull request closes it. */
  issue?: { repo: string; number: number; url: string };
  /** The run's pull requests, by task id ('' for the one of the whole run). */
  pullRequests: Record<string, PullRequestRecord>;
  /** The last time the run was applied to a branch of the user's. */
  applied?: { branch: string; commit: string; history: ApplyHistory; commits: number; at: string };
  warnings: string[];
  /** When nobody drove the run (see RunStop), oldest first. */
  stops: RunStop[];
  /** Transcripts of the calls made for no task (planning, the integration's pull request fixes). */
  transcripts: TranscriptRecord[];
  /** The ids of the run's inbox requests already recorded (acted on or refused): one left behind by a crash is not recorded twice. */
  inboxRequests: string[];
  lastSeq: number;
}
