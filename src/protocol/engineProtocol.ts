// The wire contract between the extension (src/extension) and the engine server
// (src/engine/server): every request and notification, with its parameter and result types.
// Both sides import this file and nothing else of each other.
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';
import type { ApplyHistory, BaselineChoice, OverlapMode, OverlapPair, RunEvent } from '../engine/domain/events';
import type { Plan } from '../engine/domain/plan';
import type { PlanTaskFix } from '../engine/domain/planFindings';
import type { RunState } from '../engine/domain/runState';
import type { RunIndexEntry } from '../engine/domain/runIndex';
import type { RunStats } from '../engine/report/runStats';
import type { TextSpan } from '../engine/domain/textSpan';
import type { TaskState } from '../engine/domain/taskStates';
import type { ErrorCode, ErrorKind } from '../engine/domain/taskloomError';
import type { NextStep } from '../engine/domain/nextStep';
import type { SendOutcome } from '../engine/domain/taskMessages';
import type { RunSettings } from './runSettings';
import type { TranscriptBatch } from './runViewPages';

/** Every request names the workspace folder (an absolute path) it acts on: one server serves all roots. */
export interface FolderParams {
  folder: string;
}
export interface RunParams extends FolderParams {
  runId: string;
}

/**
 * An error the user can act on: the server answers requests that fail this way with a
 * ResponseError whose `data` is this shape, and the extension shows message + hint.
 */
export interface UserFacingErrorData {
  /** What the failure is about (bad input, missing setup, a busy workspace, storage…). */
  kind: ErrorKind;
  /** Exactly what a use case refused (src/engine/usecases), for a client that acts on it rather than show it. */
  code?: ErrorCode;
  /** What to do next, in words that name no command. */
  hint?: string;
  /** The steps the hint speaks of, as data: the editor offers each as a button (connection/nextStepButtons.ts). */
  next?: NextStep[];
  /**
   * Set when the run was not started by Taskloom on this machine (its `.taskloom/` came with the
   * repository): what driving it would execute. Re-send with `trustRun: true` once the user agreed.
   */
  unknownRun?: { whatWouldRun: string[] };
  /** Set when discarding was refused because these tasks' approved work was never applied or pushed. */
  unpublishedWork?: string[];
  /** Set when the forge has no token or refused it: signing in (VS Code's GitHub sign-in) may help. */
  forgeCredentials?: true;
  /** The editor setting to change (an agent's path, its command line), when the error is about one. */
  setting?: `taskloom.${string}`;
  /** Set when planning a goal failed: the run it ended, and whether that run kept the planner's rejected plan (RunState.rejectedPlan). */
  planningFailed?: { runId: string; rejectedPlan: boolean };
  /** Set when a plan file is invalid: its problems and where each is in the file (as CheckPlanResult has them). */
  planProblems?: { file: string; problems: string[]; spans: Array<TextSpan | null> };
}

/** A request by its method name; every request fails the same way, with UserFacingErrorData. */
function request<P, R>(method: string): { method: string; type: RequestType<P, R, UserFacingErrorData> } {
  return { method, type: new RequestType<P, R, UserFacingErrorData>(method) };
}

function notification<P>(method: string): { method: string; type: NotificationType<P> } {
  return { method, type: new NotificationType<P>(method) };
}

export interface StartGoalParams extends FolderParams {
  /** A goal for the planner, or… */
  goal?: string;
  /** …a plan file (JSON or a Markdown checklist), absolute path. */
  planFile?: string;
  /** The `taskloom.*` settings the user set (user or workspace settings, not the defaults): they win over taskloom.json. */
  settings: RunSettings;
  /** VS Code's Workspace Trust: only then does taskloom.json set what starts programs or loosens confinement. */
  workspaceTrusted?: boolean;
}
export interface StartGoalResult {
  runId: string;
  /** The plan waiting for approval (planned from the goal, or loaded from the file). */
  plan: Plan;
  /** Uncommitted paths in the user's tree that the run ignores (it works from HEAD). */
  ignoredChanges: string[];
  /** taskloom.json's keys that start programs, left out (an untrusted workspace), in words. */
  settingsWarning?: string;
}
/**
 * Creates the run and plans it (or, with a plan file, proposes it). Answers when the plan
 * waits for approval; run events stream meanwhile. Cancelling the request cancels planning
 * (the run ends cancelled); a planning failure is a user-facing error and the run ends failed.
 */
export const StartGoalRequest = request<StartGoalParams, StartGoalResult>('taskloom/startGoal');

export interface ApprovePlanParams extends RunParams {
  /** The plan as edited by the human; validated again by the server. Absent: approve as proposed. */
  plan?: Plan;
  by: 'human' | 'autopilot';
}
/** Approves the run's plan and starts driving it; returns once driving has started. */
export const ApprovePlanRequest = request<ApprovePlanParams, void>('taskloom/approvePlan');

export interface RejectPlanParams extends RunParams {
  reason: string;
}
/** Ends a run whose plan was not approved; nothing was built. */
export const RejectPlanRequest = request<RejectPlanParams, void>('taskloom/rejectPlan');

export interface RevisePlanParams extends RunParams {
  fix: PlanTaskFix;
}
/** Fills in a task of the plan waiting for approval, or drops it (domain/planFindings.ts); answers with the plan as it now waits. */
export const RevisePlanRequest = request<RevisePlanParams, Plan>('taskloom/revisePlan');

export interface ResumeParams extends FolderParams {
  /** Absent: the latest unfinished run. */
  runId?: string;
  /** The user confirmed driving a run not started on this machine (see UserFacingErrorData.unknownRun). */
  trustRun?: boolean;
  /**
   * The user's answer for the gate commands that fail on the run's base where no runner says which
   * tests (the run waits for it): `advisory` for this run, or `required` (checks of work still to be done).
   */
  baselineChoice?: BaselineChoice;
}
/** Resumes a stopped run (in-flight tasks restart from a clean worktree); returns once driving has started. */
export const ResumeRequest = request<ResumeParams, { runId: string }>('taskloom/resume');

/** Cancels planning or driving (agents and gates are stopped), or a run paused for a choice about its base: the run ends `cancelled` (resumable). */
export const CancelRequest = request<RunParams, void>('taskloom/cancel');

export interface TaskDecisionParams extends TaskParams {
  action: 'retry' | 'accept' | 'skip';
  note?: string;
}
/** A human's decision on a task that needs one; the run is driven on afterwards. */
export const TaskDecisionRequest = request<TaskDecisionParams, void>('taskloom/taskDecision');

export interface ChooseCandidateParams extends TaskParams {
  /** The candidate's number, 1-based. */
  candidate: number;
  note?: string;
}
/** A person takes another of a task's candidates while it waits for them (src/engine/usecases/chooseCandidate.ts); the run is driven on afterwards. */
export const ChooseCandidateRequest = request<ChooseCandidateParams, void>('taskloom/chooseCandidate');

export interface PredictedOverlaps {
  /** What the run does about them: run them one after the other, only warn, or nothing. */
  mode: OverlapMode;
  pairs: OverlapPair[];
}
/** The overlaps the run's plan predicts from its files hints (shown at plan approval; the run records them when it starts). */
export const PredictOverlapsRequest = request<RunParams, PredictedOverlaps>('taskloom/predictOverlaps');

export interface TaskParams extends RunParams {
  taskId: string;
  /** As ResumeParams.trustRun. */
  trustRun?: boolean;
}
export interface ResolveByHandResult {
  /** The task's worktree, with the verified integration branch merged in. */
  path: string;
  /** Files left with conflict markers (empty: the merge was clean, fix what the integration gate found). */
  conflicts: string[];
  /** Commits of the merge's sides, readable with FileAtCommitRequest: the task's work, the integration commit, their base. */
  ours: string;
  theirs: string;
  base: string;
}
/** A person takes over a task the merge queue sent back (HUMAN_RESOLVING); nothing is driven. */
export const ResolveByHandRequest = request<TaskParams, ResolveByHandResult>('taskloom/resolveByHand');

export interface ContinueTaskResult {
  /** The gate passed on the person's resolution: the task is queued and the run is driven on. */
  passed: boolean;
  /** When it did not: the failing check (a conflict marker left, or the gate's first failing command). */
  failure?: { command: string; exitCode: number | null; output: string };
}
/** After resolving by hand: commits the worktree, runs the gate on it, and when it passes queues the task and drives the run. */
export const ContinueTaskRequest = request<TaskParams, ContinueTaskResult>('taskloom/continueTask');

export interface SendToTaskParams extends TaskParams {
  /** The person's words for the task's actor (the sender is the user's git user.name, else their login). */
  text: string;
}
export interface SendToTaskResult {
  messageId: string;
  /** What the drive did with it within a few seconds (text/messageWords.ts words it). */
  outcome: SendOutcome;
}
/** Leaves a message for a running task's actor in the run's inbox (src/engine/usecases/sendToTask.ts), whichever process drives the run. */
export const SendToTaskRequest = request<SendToTaskParams, SendToTaskResult>('taskloom/sendToTask');

export interface StopTaskResult {
  /** The task's state once stopped (needs you), or undefined when the process that drives the run was asked and has not acted yet. */
  state?: TaskState;
  /** Who drives the run, when it is another process that was asked (the run's inbox). */
  askedDriver?: string;
}
/** Stops one task's agent, gate or critic; the rest of the run goes on, and the task waits for the person ("stopped by you"). */
export const StopTaskRequest = request<TaskParams, StopTaskResult>('taskloom/stopTask');

export interface TakeOverResult {
  /** The task's worktree, where the person's session runs. */
  worktree: string;
  /** What the session is: the actor's agent (resumed from `resumes`, when it left a session), or a shell. */
  program: 'claude' | 'codex' | 'shell';
  resumes?: string;
}
/**
 * Stops the task if it runs and records that the person works on it ("taken over by you"); the
 * editor then opens a terminal running `taskloom take-over`, which opens the session confined.
 */
export const TakeOverRequest = request<TaskParams, TakeOverResult>('taskloom/takeOver');

export interface ApplyIntegrationParams extends RunParams {
  /**
   * Each task lands as one commit: `merge` (the default) joins them to the branch with a merge
   * commit, `squash` puts them on the branch itself; the setting taskloom.apply.history.
   */
  history?: ApplyHistory;
}
export interface ApplyPreview {
  /** The branch checked out in the user's repository, which the apply changes. */
  branch: string;
  /** Commits the apply will put on the branch (one per task with a change, and the merge commit with merge history). */
  commits: number;
  /** It was applied before: applying changes nothing. */
  alreadyApplied: boolean;
  /** Tasks the run skipped, so their work is not in it. */
  leftOut: Array<{ taskId: string; title: string }>;
}
/** What applying a run would make on the user's current branch, changing nothing; refused where applying would be. */
export const PreviewApplyRequest = request<ApplyIntegrationParams, ApplyPreview>('taskloom/previewApply');

export interface ApplyIntegrationResult {
  /** The user's branch, now at `commit`. */
  branch: string;
  commit: string;
  /** Files the apply changed in the user's tree. */
  files: string[];
  /** Commits the branch received, counted on it. */
  commits: number;
  /** It was applied before: nothing changed. */
  alreadyApplied: boolean;
  /** Tasks the run skipped, so their work is not in it. */
  leftOut: Array<{ taskId: string; title: string }>;
}
/** Applies a completed run to the user's current branch (refused on a dirty tree, or when the gate did not pass on it). */
export const ApplyIntegrationRequest = request<ApplyIntegrationParams, ApplyIntegrationResult>('taskloom/applyIntegration');

export interface DiscardRunParams extends RunParams {
  /** Discard even work that was never applied or pushed. */
  force?: boolean;
}
/**
 * Removes a run's worktrees, branches, snapshot refs and record; refuses while the run is being
 * driven, and without `force` when approved work was never applied or pushed.
 */
export const DiscardRunRequest = request<DiscardRunParams, void>('taskloom/discardRun');

/** Where the run's pull requests live, from the editor: its GitHub sign-in and the taskloom.github.apiUrl setting. */
export interface ForgeParams {
  /** A token from VS Code's GitHub sign-in; without one the engine uses GITHUB_TOKEN, GH_TOKEN or `gh auth token`. */
  token?: string;
  /** taskloom.github.apiUrl (GitHub Enterprise); empty: GITHUB_API_URL, else https://api.github.com. */
  apiUrl?: string;
}

export interface OpenPullRequestParams extends RunParams, ForgeParams {
  remote?: string;
  draft?: boolean;
  stacked?: boolean;
}
export interface OpenPullRequestResult {
  pullRequests: Array<{ taskId: string | null; number: number; url: string; action: 'opened' | 'updated' }>;
}
/** Pushes a completed run and opens its pull request (or updates the one it has), as `taskloom pr` does. */
export const OpenPullRequestRequest = request<OpenPullRequestParams, OpenPullRequestResult>('taskloom/openPullRequest');

export interface AdoptPullRequestParams extends FolderParams, ForgeParams {
  /** Its number (`12`, `#12`) or its URL. */
  pullRequest: string;
  /** The agents, gate and limits its fixes use, for the run made the first time (the settings the user set; taskloom.json fills in). */
  settings: RunSettings;
  /** Keys of taskloom.json that start programs count only in a trusted workspace. */
  workspaceTrusted?: boolean;
}
export interface AdoptPullRequestResult {
  runId: string;
  number: number;
  url: string;
  /** An earlier run already kept it green: that run is used again. */
  reused: boolean;
}
/**
 * Takes on a person's own pull request (one Taskloom did not open) to keep green, as `taskloom
 * watch --pr` does: its run, made the first time; watch it next with WatchPullRequestsRequest.
 * Refused (a user-facing error) for a fork's pull request and a closed or merged one.
 */
export const AdoptPullRequestRequest = request<AdoptPullRequestParams, AdoptPullRequestResult>('taskloom/adoptPullRequest');

export interface WatchPullRequestsParams extends RunParams, ForgeParams {
  intervalSeconds?: number;
  /** taskloom.pullRequests.trustedBots: the bots (logins) whose reviews and comments may steer an agent. */
  trustedBots?: string[];
  /** End each pull request once it is green, as `watch --once`; by default it is watched until merged or closed. */
  once?: boolean;
  /** taskloom.pullRequests.escalateAfterMinutes: red this long with no progress is escalated (0: never; default 60). */
  escalateAfterMinutes?: number;
  /** taskloom.pullRequests.autoMerge: merge a green pull request approved by someone with write access. */
  autoMerge?: boolean;
}
export interface WatchPullRequestsResult {
  outcome: 'green' | 'merged' | 'needs_human' | 'cancelled';
  /** One line per pull request: where it stands. */
  reasons: string[];
  /** What the person can do next, in words; and the steps they speak of. */
  next?: string;
  steps?: NextStep[];
}
/**
 * Keeps the run's pull requests green, as `taskloom watch` does, until every one is merged, closed
 * or needs a person (with `once`, also green), or the request is cancelled. It holds the workspace lock only during each
 * pass, so the CLI can work in between; what it sees and does arrives as the run's events.
 */
export const WatchPullRequestsRequest = request<WatchPullRequestsParams, WatchPullRequestsResult>('taskloom/watchPullRequests');

export interface RunListEntry extends RunIndexEntry {
  /** Tasks merged, skipped, and all of them (domain/taskCounts.ts): "3/7" is 3 of 7 merged. */
  merged: number;
  skipped: number;
  total: number;
  /** This server is driving (or planning) the run now. */
  active: boolean;
  /** Its plan was approved: a run stopped before that is started again, never resumed. */
  planApproved: boolean;
  /** Not started by Taskloom on this machine (no record outside the repository): resume asks first. */
  foreign: boolean;
  /** Its pull requests that are open and neither merged nor handed to the user by a watch (green is not an end). */
  pullRequestsToWatch: number;
  /** Bytes its worktrees take on disk (real blocks); absent when not measured. `taskloom gc` frees a finished run's. */
  diskBytes?: number;
}
export interface ListRunsResult {
  runs: RunListEntry[];
  /** Another process (e.g. the CLI) holds the workspace lock: who, for the user. */
  drivenElsewhere?: string;
  /** The repository has the remote the editor pushes pull requests to (PULL_REQUEST_REMOTE): Open Pull Request is offered only then. */
  hasPullRequestRemote: boolean;
  warnings: string[];
}
export interface ListRunsParams extends FolderParams {
  /** Leave `diskBytes` out: measuring walks every worktree, and a first paint of the runs need not wait for it. */
  skipDiskUsage?: boolean;
}
export const ListRunsRequest = request<ListRunsParams, ListRunsResult>('taskloom/listRuns');

export interface RunStatsParams extends FolderParams {
  /** Only runs started at or after this date (YYYY-MM-DD, midnight UTC, or an ISO time). */
  since?: string;
  /** Only these runs; by default every run recorded in the folder's repository. */
  runIds?: string[];
}
export interface RunStatsResult {
  stats: RunStats;
  /** `since` as the ISO time it was read as, or null. */
  since: string | null;
  /** Runs left out (a log that does not load), and what reading the logs had to say. */
  warnings: string[];
}
/** What the runs here cost and how they went, across runs (src/engine/usecases/runStats.ts; docs/stats.md). */
export const RunStatsRequest = request<RunStatsParams, RunStatsResult>('taskloom/runStats');

/** The remote the editor pushes a run's branch to when it opens a pull request. */
export const PULL_REQUEST_REMOTE = 'origin';

/** The run's full projected state; afterwards the client folds `EventsNotification`s onto it. */
export const GetRunRequest = request<RunParams, RunState>('taskloom/getRun');

export interface ChangedFile {
  path: string;
  /** git's letter: A added, M modified, D deleted, R renamed. */
  status: 'A' | 'M' | 'D' | 'R';
  oldPath?: string;
}
export interface DiffParams extends RunParams {
  /** A task id, or absent for the integration branch against the run's base. */
  taskId?: string;
  /** With a task: the seq of one of its critic reviews (its ledger entry), for the diff that review read instead of today's. */
  reviewSeq?: number;
  /** With a task that ran as candidates: that candidate's work (its commit against the task's start commit). */
  candidate?: number;
}
export interface DiffResult {
  /** Commits to compare (base → head); resolvable by `FileAtCommitRequest`. */
  base: string;
  head: string;
  files: ChangedFile[];
  /** A worktree with uncommitted work the diff leaves out. */
  uncommitted: string[];
  /**
   * Set when a review was asked for: its number, and how its commits were found ('unrecorded': an
   * older log does not tell, so the diff is today's).
   */
  review?: { number: number; source: 'recorded' | 'reconstructed' | 'unrecorded' };
}
export const DiffRequest = request<DiffParams, DiffResult>('taskloom/diff');

export interface FileAtCommitParams extends FolderParams {
  commit: string;
  path: string;
}
/** A file's content at a commit; null when it does not exist there. */
export const FileAtCommitRequest = request<FileAtCommitParams, { content: string | null }>('taskloom/fileAtCommit');

export interface DoctorCheck {
  status: 'ok' | 'warn' | 'fail';
  label: string;
  text: string;
}
export const DoctorRequest = request<FolderParams & { settings: RunSettings; workspaceTrusted?: boolean }, { checks: DoctorCheck[]; verdict: string }>('taskloom/doctor');

export interface EventsParams extends RunParams {
  /** In seq order, each after the previous notification's last. */
  events: RunEvent[];
}
/** New durable events of a run, batched (at most every ~50 ms while a run is busy). */
export const EventsNotification = notification<EventsParams>('taskloom/events');

export interface ActivityParams extends RunParams {
  taskId: string | null;
  /** `<role>: <what it did>`, redacted. */
  line: string;
}
/**
 * A line of what an agent is doing now, as it prints it (not durable: the output channel shows
 * it; the durable, bounded record is the run's agent_transcript events).
 */
export const ActivityNotification = notification<ActivityParams>('taskloom/activity');

export interface PrepareDemoParams extends FolderParams {
  /** How long each scripted step takes, so a person can watch (the CLI's --delay); default 400. */
  delayMs?: number;
}
export interface PrepareDemoResult {
  /** The demo's plan, for StartGoalRequest with `settings`. */
  planFile: string;
  settings: RunSettings;
  /** The folder was new or empty and the demo was made in it; false: it already was the demo. */
  made: boolean;
}
/**
 * The demo in `folder`: made there (the sample project with its first commit, its plan and the
 * scripted agent's scenario) when the folder is new or empty, found when it already is one;
 * any other folder is refused.
 */
export const PrepareDemoRequest = request<PrepareDemoParams, PrepareDemoResult>('taskloom/prepareDemo');

export interface RestoreSnapshotParams extends RunParams {
  /** The ledger entry of the actor snapshot (its event's seq). */
  seq: number;
}
export interface RestoreSnapshotResult {
  taskId: string;
  attempt: number;
  worktree: string;
  /** The files put back; files created since the snapshot stay. */
  files: string[];
}
/**
 * Puts a task's worktree back as an actor snapshot holds it (`git checkout <snapshot> -- .` in the
 * CLI's words): only for a task waiting for a person, and not while this server drives the run.
 */
export const RestoreSnapshotRequest = request<RestoreSnapshotParams, RestoreSnapshotResult>('taskloom/restoreSnapshot');

export interface RunEventParams extends RunParams {
  seq: number;
}
/** One event of a run's log by seq (e.g. a gate result's full output for the ledger); null when absent. */
export const RunEventRequest = request<RunEventParams, RunEvent | null>('taskloom/runEvent');

export interface TranscriptParams extends RunParams {
  /** The batches to read: the seqs of agent_transcript events (TranscriptRecord.batches). */
  seqs: number[];
}
export interface TranscriptResult {
  /** Those of the asked seqs that are transcript batches, in seq order, each with its call (TranscriptRecord.seq); redacted, as in the log. */
  batches: Array<TranscriptBatch & { call: number }>;
}
/**
 * Batches of agent transcripts, read from the run's log by seq (the state keeps only where they
 * are; other lines of the log are not even parsed): the run view asks for a call's lines when it
 * shows them, and folds later batches from EventsNotification on top.
 */
export const TranscriptRequest = request<TranscriptParams, TranscriptResult>('taskloom/transcript');

export interface CheckPlanParams {
  /** The plan as the human edited it: JSON text. */
  text: string;
  /** Where the text came from, for messages. */
  source: string;
}
export interface CheckPlanResult {
  /** Every problem at once (empty when the plan is valid). */
  problems: string[];
  /** Where each problem is in the text (same order; null where it is not known). */
  spans?: Array<TextSpan | null>;
  /** The plan, normalised, when valid. */
  plan?: Plan;
}
/** Validates an edited plan with the engine's own rules (the same ones approval applies). */
export const CheckPlanRequest = request<CheckPlanParams, CheckPlanResult>('taskloom/checkPlan');

export interface SetNotifyTargetsParams {
  /**
   * Where word of the runs this server drives goes from now on (docs/notifications.md): URLs as
   * the CLI's `--notify` takes them, their secret references already resolved by the editor.
   */
  targets: string[];
}
/**
 * Replaces the notification targets of every run the server drives from its next engine open on;
 * a bad URL is a user-facing error naming only its scheme and host, and leaves the targets as they were.
 */
export const SetNotifyTargetsRequest = request<SetNotifyTargetsParams, void>('taskloom/setNotifyTargets');

export interface OpenIssuesParams extends FolderParams, ForgeParams {}
export interface OpenIssuesResult {
  /** `owner/repo` of the remote's repository. */
  repo: string;
  /** Newest first, at most 50. */
  issues: Array<{ number: number; title: string; author: string; url: string }>;
}
/** The open issues of the repository of the `origin` remote, for "Start Goal from GitHub Issue…" to pick from. */
export const OpenIssuesRequest = request<OpenIssuesParams, OpenIssuesResult>('taskloom/openIssues');

export interface IssueGoalParams extends FolderParams, ForgeParams {
  /** `OWNER/REPO#N`, the issue's URL, or `#N` / `N` for the remote's repository. */
  issue: string;
}
export interface IssueGoalPreview {
  repo: string;
  number: number;
  url: string;
  author: string;
  /** The author has write access: the goal is used without asking. */
  authorTrusted: boolean;
  /** The run's goal, exactly: the issue's title and body and the comments of people with write access. */
  goal: string;
  /** Comments left out (their authors have no write access), in words; empty when none were. */
  leftOut: string;
}
/** Reads the issue and makes its goal, as `taskloom run --issue` shows it; starts nothing. */
export const IssueGoalRequest = request<IssueGoalParams, IssueGoalPreview>('taskloom/issueGoal');

export interface StartIssueGoalParams extends IssueGoalParams {
  /**
   * For an issue opened by someone without write access: the goal the person read and said to use
   * (IssueGoalPreview.goal). Refused (`untrusted_issue`) when it is not the goal the issue gives now.
   */
  confirmedGoal?: string;
  settings: RunSettings;
  workspaceTrusted?: boolean;
}
/** Starts a run whose goal is the issue (as `taskloom run --issue`) and plans it; answers as StartGoalRequest does. */
export const StartIssueGoalRequest = request<StartIssueGoalParams, StartGoalResult>('taskloom/startIssueGoal');
