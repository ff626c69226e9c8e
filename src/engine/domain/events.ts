import type { Plan } from './plan';
import type { RunConfig } from './runConfig';
import type { SandboxMode } from './sandboxSettings';
import type { SensitiveChange } from './sensitivePaths';
import type { TaskEvent, TaskState } from './taskStates';
import type { TokenUsage } from './usage';
import type { CriticVerdict } from './verdict';
import type { GateSelection, GateTestOutcome, TestRef } from './gateTests';

export type AgentRole = 'planner' | 'actor' | 'critic';

/**
 * The version of the event format this release writes, carried by every event as `v`. Events
 * without one were written by release 0.1 (version 1). Every older version stays loadable: its
 * logs are test fixtures (test/fixtures/logs) that the current code loads and resumes.
 * Version 3 added `agent_transcript`: a release that reads up to 2 refuses such a log with "update
 * Taskloom" rather than failing on an event type it does not know. Version 4 added `confinement`,
 * `pr_input_ignored`, `sensitive_held` and the SENSITIVE_PATHS_TOUCHED transition. Version 5 added
 * `baseline_result`, `baseline_choice` and `missed_regression` (the gate judged against the base).
 * Version 6 added `task_message`, `task_message_delivered`, `task_stop_requested` and
 * `run_request_refused` (a person steering a running task through the run's inbox), and
 * `pull_request_escalated` and `pull_request_merged_by_taskloom` (`watch` as a service), and the
 * HUMAN_STOPPED, HUMAN_TOOK_OVER and HANDED_BACK transitions (a person stops one task, works on it
 * themselves, and hands it back) and MESSAGE_SENT_BACK (a person's message sends an approved
 * attempt back to its actor). Version 7 added `run_issue` (a run whose goal is a forge issue).
 * Version 8 added `candidate_started`, `candidate_finished`, `candidate_skipped` and
 * `candidate_picked` (a task run as several candidates), and the critic's `compare` purpose.
 */
export const EVENT_SCHEMA_VERSION = 8;

/** Two tasks whose files (hints, or files really changed) meet; `first` comes first in dependency order. */
export interface OverlapPair {
  first: string;
  second: string;
  files: string[];
}

export type OverlapMode = 'serialize' | 'warn' | 'off';

/** How a run lands on the user's branch: a merge commit of the integration branch, or one commit per task. */
export type ApplyHistory = 'merge' | 'squash';

/** Result of one gate command, with output already capped and redacted. */
export interface GateCommandResult {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  output: string;
  /**
   * For a failed command: what its output says failed (see gate/failureExcerpt: the failing tests
   * of the runner's shape, or head and tail), for the ledger and the actor. Absent before 0.2.
   */
  failure?: { excerpt: string; shape: string | null };
  /** Where Taskloom recognised the command's test runner: its tests, judged against the run's baseline. */
  tests?: GateTestOutcome;
  /**
   * The command failed on the run's base too, where it could not be compared test by test, and the
   * user chose to treat it as advisory for this run: its failure is shown and does not fail the gate.
   */
  advisory?: true;
  /** Which of the command's tests a task gate ran, when not all of them (absent: all). */
  selection?: GateSelection;
}

/** The user's answer when a gate command fails on the run's base and cannot be compared test by test. */
export type BaselineChoice = 'advisory' | 'required';

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
      /** The task's TASKLOOM_PORT, the same for all its steps (absent before worktree setup existed). */
      port?: number;
      /**
       * A merged task's worktree from the run's pool was checked out for this one (that task's id;
       * '' when the pool had not recorded it) instead of a new checkout. Absent: a new worktree.
       */
      recycledFrom?: string;
      /** Recycled with the setup's outputs kept: no setup input (lockfile) changed since it last ran, so it does not run again. */
      setupKept?: boolean;
    }
  /**
   * A task worktree made ready before its actor starts, once per new worktree (again after a
   * failure): untracked files copied in from the main checkout (`.worktreeinclude`, the copy
   * setting), then the setup commands, up to the first that failed. A failed setup ends the task
   * in NEEDS_HUMAN (SETUP_FAILED) with its output; it is not a gate failure.
   */
  | {
      type: 'worktree_setup';
      taskId: string;
      path: string;
      /** Copied files, the first WORKTREE_COPIED_LISTED of them; `copiedCount` counts them all. */
      copied: string[];
      copiedCount: number;
      /** Files the patterns name that git does not ignore in the worktree: left out, or they would be committed. */
      notIgnored: string[];
      passed: boolean;
      /** The run was cancelled or stopped while a command ran: the setup runs again. */
      cancelled?: boolean;
      commands: GateCommandResult[];
    }
  | { type: 'work_committed'; taskId: string; attempt: number; commit: string; filesChanged: string[] }
  /**
   * The task's approved work (`commit`, reviewed against `base`) touches sensitive paths that
   * neither the approved plan nor an earlier acceptance released: it waits for a human
   * (SENSITIVE_PATHS_TOUCHED follows). An acceptance approves these paths for the rest of the task.
   */
  | { type: 'sensitive_held'; taskId: string; commit: string; base: string; files: SensitiveChange[] }
  /**
   * The task worktree exactly as it was before actor attempt `attempt` (uncommitted files included),
   * as a commit off the task branch's HEAD that no branch contains; `ref` keeps it from `git gc`.
   */
  | { type: 'actor_snapshot'; taskId: string; attempt: number; commit: string; ref: string }
  | {
      type: 'gate_result';
      /** A task id, or null for the integration gate. */
      taskId: string | null;
      /** The task's attempt; for the integration gate, the merge queue's batch. */
      attempt: number;
      passed: boolean;
      commands: GateCommandResult[];
      /** Integration gate: the commit it ran on, and the tasks of the batch that commit holds (absent in 0.1 logs). */
      commit?: string;
      taskIds?: string[];
      /** A task's gate: the tree it ran on, so an attempt that changes nothing is not gated again. */
      tree?: string;
      /** What the result depends on (gate/gateCacheKey.ts): the same key is never gated twice in a run. */
      key?: string;
      /** Not run: the result of the gate with the same key, this one's (`seq` of its gate_result). */
      cachedFrom?: { seq: number; taskId: string | null; attempt: number };
    }
  /**
   * The gate on the run's base commit, before any task's change (every command, each whatever the
   * one before did): what already fails there is not a task's to fix. `cached`: an earlier run gated
   * the same base tree with the same commands and environment.
   */
  | { type: 'baseline_result'; commit: string; tree: string; key: string; commands: GateCommandResult[]; cached?: true }
  /** The user's choice for base failures that cannot be compared test by test (`commands`, as written). */
  | { type: 'baseline_choice'; commands: string[]; choice: BaselineChoice; /** Made by taskloom.gate.onBaseFailure, not asked. */ bySetting?: true }
  /**
   * The integration gate (which runs every test) found new failures of a command whose task gates ran
   * only the tests their changes could affect: what the narrower selection missed, counted.
   */
  | { type: 'missed_regression'; command: string; tests: TestRef[]; taskIds: string[] }
  /** The actor's attempt changed no file since a failed gate on the same tree: the gate is not run again, its failure stands. */
  | { type: 'gate_skipped'; taskId: string; attempt: number; tree: string; failedAttempt: number }
  | {
      type: 'critic_verdict';
      taskId: string;
      review: number;
      verdict: CriticVerdict;
      blocking: number;
      /** The diff the critic read: `base` → `commit` (the worktree's HEAD). Absent in logs written before it was recorded. */
      base?: string;
      commit?: string;
    }
  /**
   * What an agent call printed while it worked, a batch at a time (session/transcriptRecorder.ts). The
   * call's first batch starts its transcript, and its seq names the call: later batches carry it
   * as `call`, and so does the call's `runner_call` as `transcript`. A call keeps at most its first
   * TRANSCRIPT_LIMITS.headLines lines, one sampled line now and then past them, and its last
   * lines; `omitted` counts those left out just before this batch's lines.
   */
  | {
      type: 'agent_transcript';
      taskId: string | null;
      /** Absent on the first batch, which is the call's. */
      call?: number;
      /** The call's role, attempt and purpose (as in RunnerInput), on its first batch. */
      role?: AgentRole;
      attempt?: number;
      purpose?: CallPurpose;
      /** The candidate the call built (run/candidates.ts), on its first batch. */
      candidate?: number;
      lines: TranscriptLine[];
      omitted?: number;
    }
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
      /** The seq of the call's first `agent_transcript` batch (absent when it printed nothing, and in logs from before transcripts). */
      transcript?: number;
      /** The candidate whose actor made the call (run/candidates.ts): its conversation is not the task's. */
      candidate?: number;
    }
  /** One of a task's candidates starts, in a worktree and on a branch of its own, from the task's start commit. */
  | { type: 'candidate_started'; taskId: string; candidate: number; agent: string; model?: string; branch: string; path: string; baseCommit: string }
  /**
   * A candidate's actor finished and its work was gated (`passed`, `commands`); `failure` when its
   * worktree setup (then `commands` are the setup's) or its actor failed instead, and no gate ran. `tree`/`key` as in gate_result: the task's gate of the same tree is served from it.
   */
  | {
      type: 'candidate_finished';
      taskId: string;
      candidate: number;
      passed: boolean;
      commands: GateCommandResult[];
      commit?: string;
      filesChanged: string[];
      tree?: string;
      key?: string;
      failure?: string;
    }
  /** A budget kept a candidate from starting. */
  | { type: 'candidate_skipped'; taskId: string; candidate: number; reason: string }
  /**
   * The candidate the task goes on with: the critic's pick among those that passed the gate, the only
   * one that passed or the one that failed least ('gate'), or a person's choice before the merge.
   */
  | { type: 'candidate_picked'; taskId: string; candidate: number; by: CandidatePicker; reasons: string; passed: number[] }
  | { type: 'human_decision'; taskId: string; action: HumanAction; note?: string }
  | { type: 'integration_prepared'; branch: string; path: string }
  /** The task passed its gate and critic at `commit` and waits in the merge queue. */
  | { type: 'merge_queued'; taskId: string; commit: string }
  /** The merge queue merges these tasks, in this order, onto the verified integration head `base`, then gates the result. */
  | { type: 'queue_batch'; batch: number; base: string; taskIds: string[] }
  /**
   * The task is in the integration branch: its merge passed the integration gate (in a 0.1 log:
   * merged, with the gate run once at the end).
   */
  | { type: 'merge_done'; taskId: string; commit: string; alreadyMerged: boolean }
  | { type: 'merge_conflict'; taskId: string; files: string[] }
  /** A batch's gate failed and bisection found the first merge that fails it: `merged` stay, `requeued` go back to the queue. */
  | { type: 'queue_bisected'; batch: number; culprit: string; merged: string[]; requeued: string[] }
  /**
   * The task's worktree merged the verified integration head into its branch (at `from`), to
   * resolve a conflict (`conflicts` lists the files left with markers) or fix the integration gate.
   */
  | {
      type: 'task_synced';
      taskId: string;
      path: string;
      from: string;
      integrationCommit: string;
      conflicts: string[];
      /** The worktree was gone and was added again at the branch: it is set up again before its agent starts. */
      added?: boolean;
      /** The task's TASKLOOM_PORT (absent before worktree setup existed). */
      port?: number;
    }
  /** Overlaps the plan's files hints predict, and what the run does about them (recorded once, when the run starts). */
  | { type: 'overlaps_predicted'; mode: OverlapMode; pairs: OverlapPair[] }
  /** A task's committed change touches files that another running or merged task changed. */
  | { type: 'overlap_detected'; taskId: string; otherTaskId: string; files: string[] }
  /** The run's work was applied to the user's branch: merged, or one commit per task (`squash`). */
  | { type: 'run_applied'; branch: string; commit: string; history: ApplyHistory; commits: number }
  /**
   * A pull request of the run on its forge: the whole run (taskId null), or one task's in a stack.
   * `adopted`: a person's own pull request that `watch --pr` keeps green; Taskloom did not open it.
   */
  | {
      type: 'pull_request';
      taskId: string | null;
      number: number;
      url: string;
      head: string;
      base: string;
      action: 'opened' | 'updated' | 'adopted';
      /** OWNER/REPO on the forge, and the remote its branch is pushed to: where `watch` looks and pushes. */
      repo: string;
      remote: string;
    }
  /** What `watch` saw on a pull request, recorded when it changed: its head, the head's checks, the reviews, mergeability. */
  | {
      type: 'pr_observed';
      number: number;
      headSha: string;
      state: 'open' | 'closed' | 'merged';
      mergeable: boolean | null;
      checks: Array<{ name: string; status: CheckStatus }>;
      review: ReviewVerdict;
    }
  /**
   * `watch` reacts to signals (`check:<id>`, `review:<id>`, `conflict:<head sha>`) it has not
   * reacted to before: an agent fixes them on the pull request's branch at `headSha`. `taskIds`
   * are whose actors work on it (null: the integration's).
   */
  | { type: 'pr_reaction_started'; number: number; reaction: number; kind: PullRequestReactionKind; signals: string[]; headSha: string; taskIds: Array<string | null>; summary: string }
  /** A reaction a stopped `watch` left unfinished is taken up again (nothing was pushed yet). */
  | { type: 'pr_reaction_resumed'; number: number; reaction: number; reason: string }
  /** The gate on a reaction's fix, in its worktree (the run's gate commands). */
  | { type: 'pr_fix_gated'; number: number; reaction: number; attempt: number; passed: boolean; commands: GateCommandResult[] }
  | { type: 'pr_fix_reviewed'; number: number; reaction: number; attempt: number; verdict: CriticVerdict; blocking: number }
  | { type: 'pr_fix_pushed'; number: number; reaction: number; commit: string; commits: number }
  /** The reply on the review comment a reaction answered. */
  | { type: 'pr_replied'; number: number; reaction: number; commentId: string }
  | { type: 'pr_reaction_finished'; number: number; reaction: number; outcome: 'pushed' | 'failed'; reason: string }
  /** `watch` stopped watching: the pull request is green (checks pass, the latest review approves), merged, or needs a person. */
  | { type: 'pr_watch_ended'; number: number; outcome: 'green' | 'merged' | 'needs_human'; reason: string }
  /**
   * A pull request has been red (`red`: failing checks, or a conflict with its base) at `headSha`
   * since `since` for at least `afterMinutes` with no progress (no new head): recorded once per red
   * stretch, for a person to look. What notification channels subscribe to.
   */
  | { type: 'pull_request_escalated'; number: number; url: string; headSha: string; red: PullRequestRedness; failing: string[]; since: string; afterMinutes: number }
  /** `watch --auto-merge` merged a green pull request approved by `approvedBy` (people with write access), at the head it saw. */
  | { type: 'pull_request_merged_by_taskloom'; number: number; headSha: string; method: MergeMethod; commit: string; approvedBy: string[] }
  /**
   * How this session of the run starts its processes, recorded when a session starts work and the
   * answer differs from the last one: confined by `mechanism`, or unconfined for `reason`.
   */
  | { type: 'confinement'; mode: SandboxMode; confined: boolean; mechanism?: string; reason?: string }
  /**
   * `watch` left something on a pull request alone, once per input: a review, review comment or conversation comment
   * whose author has no write access (`association` as the forge said it, `permission` when it was
   * asked) or is a bot not in taskloom.pullRequests.trustedBots, or a failing check's output from a
   * fork (`author`: the fork). `excerpt`: its visible text, sanitised and cut short.
   */
  | {
      type: 'pr_input_ignored';
      number: number;
      input: IgnoredInputKind;
      id: string;
      author: string;
      why: IgnoredInputReason;
      association?: string;
      permission?: string;
      state?: string;
      path?: string;
      excerpt: string;
    }
  /**
   * The run's goal is issue `number` of `repo` (`taskloom run --issue`): opened by `author`, who has
   * write access (`authorTrusted`) or whose issue a person confirmed (`confirmedBy`); the comments
   * of people with write access went into the goal (`usedComments`: their authors), the others were
   * left out (`leftOut`: one per comment, who wrote it and why).
   */
  | {
      type: 'run_issue';
      repo: string;
      number: number;
      url: string;
      title: string;
      author: string;
      authorTrusted: boolean;
      confirmedBy?: 'human';
      /** The person with write access whose label started the run (`watch --issues LABEL`): their say-so stands for the confirmation. */
      labelledBy?: string;
      usedComments: string[];
      leftOut: IssueCommentLeftOut[];
    }
  | { type: 'run_paused'; reason: string }
  | { type: 'run_resumed'; reason: string }
  /** `rejectedPlan`: planning failed, and this is the planner's last answer, for a person to fix and start from. */
  | { type: 'run_finished'; status: RunEndStatus; summary: string; counts?: RunCounts; rejectedPlan?: string }
  | { type: 'warning'; message: string; taskId?: string }
  /** A person's words for the task's actor (`taskloom send`, the run view's message box), taken from the run's inbox: `messageId` is the request's. */
  | { type: 'task_message'; taskId: string; messageId: string; from: string; text: string }
  /** The message reached the actor: `live`, it joined the running turn of attempt `attempt`; `next_turn`, it went into that attempt's prompt. */
  | { type: 'task_message_delivered'; taskId: string; messageId: string; how: MessageDelivery; attempt: number }
  /** A person asked, through the run's inbox, to stop the task's work under way (the rest of the run goes on). */
  | { type: 'task_stop_requested'; taskId: string; requestId: string; by: string }
  /** A request of the run's inbox that was not acted on: no such task, or one whose state (`state`) takes no such request. */
  | { type: 'run_request_refused'; requestId: string; kind: RunRequestKind; taskId: string; from: string; why: RequestRefusal; state?: TaskState };

/** How a person's message reached a task's actor: in the turn it was working on, or in the prompt of its next one. */
export type MessageDelivery = 'live' | 'next_turn';
/** What an agent call is for besides its role: resolving a conflict, fixing a pull request, comparing a task's candidates. */
export type CallPurpose = 'resolve' | 'fix' | 'compare';
export type CandidatePicker = 'critic' | 'gate' | 'person';
export type RunRequestKind = 'message' | 'stop' | 'take_over';
export type RequestRefusal = 'unknown_task' | 'task_state';

/** One line of an agent's transcript: a message, a tool call (file edited, command run) or a status. */
export interface TranscriptLine {
  kind: 'text' | 'tool' | 'status';
  text: string;
  /** When the agent printed it, in ms since its call started. */
  ms: number;
  /** The same line came this many times in a row (absent: once). */
  n?: number;
}

/** How many copied paths a `worktree_setup` event lists (a virtualenv copied whole has thousands). */
export const WORKTREE_COPIED_LISTED = 50;

export type CheckStatus = 'pending' | 'success' | 'failure';
/** A pull request's reviews in one word: a latest review (per reviewer) requests changes, or approves, or none decides yet. */
export type ReviewVerdict = 'changes_requested' | 'approved' | 'none';
export type PullRequestReactionKind = 'check' | 'review' | 'conflict';
/** Why a pull request is red: a check fails at its head, or it conflicts with its base. */
export type PullRequestRedness = 'checks' | 'conflict';
/** How a pull request is merged, in GitHub's words (the repository allows some of them). */
export type MergeMethod = 'merge' | 'squash' | 'rebase';
/** `comment`: a comment in the pull request's conversation (not on a line of code). */
export type IgnoredInputKind = 'review' | 'review_comment' | 'comment' | 'check';
/** Why `watch` left an input alone: its author cannot write to the repository, is a bot nobody trusted, or it is a fork's check output. */
/** An issue comment kept out of a run's goal: who wrote it and why it was not trusted. */
export interface IssueCommentLeftOut {
  id: string;
  author: string;
  why: Exclude<IgnoredInputReason, 'fork_check'>;
  association: string;
}

export type IgnoredInputReason = 'no_write_access' | 'untrusted_bot' | 'fork_check';

/** How many of a run's tasks are where, as the run's end records it (absent in 0.1 logs). */
export interface RunCounts {
  total: number;
  merged: number;
  skipped: number;
  needsYou: number;
  /** The integration gate passed on the integration branch as it ends. */
  integrationGatePassed: boolean;
}

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

/** What a person can decide about a task (which ones a state allows: domain/humanActions.ts). */
export type HumanAction = 'retry' | 'accept' | 'skip' | 'resolve' | 'continue';

/** `v` is absent in events written before it existed (version 1). */
export type RunEvent = RunEventBody & { seq: number; runId: string; at: string; v?: number };

export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
