import type { AgentRole, CheckStatus, HumanAction, ReviewVerdict } from '../domain/events';
import type { CandidatesView, CandidateView } from '../domain/candidates';
import { allowedHumanActions } from '../domain/humanActions';
import { checksWords, REVIEW_WORDS } from '../text/pullRequestWords';
import type { IgnoredInput, PullRequestRecord, QueueProblem, RunState } from '../domain/runState';
import { countTasks, type TaskCounts } from '../domain/taskCounts';
import { taskTimings, type TaskTimings, type TimingClock } from '../domain/taskTimings';
import type { TaskState } from '../domain/taskStates';
import type { TokenUsage } from '../domain/usage';
import { counted } from '../text/counted';

/** What `taskloom trace --json` prints: one stable, documented shape derived from the projection. */
export interface TraceReport {
  runId: string;
  goal: string;
  status: RunState['status'];
  baseCommit: string;
  baseRef: string;
  createdAt: string;
  updatedAt: string;
  tasks: Array<{
    id: string;
    title: string;
    state: TaskState;
    dependsOn: string[];
    branch?: string;
    attempts: number;
    gateFailures: number;
    reviewCycles: number;
    /** Conflicts with integration met in the current try. */
    mergeConflicts: number;
    /** Why the merge queue sent the task back, while it has (the gate's output is left out: see the ledger). */
    queueProblem?: { kind: QueueProblem['kind']; files?: string[] };
    /** The merge commit that put it into the integration branch. */
    mergeCommit?: string;
    overlapWarnings: Array<{ otherTaskId: string; files: string[] }>;
    /** What a person can decide about it now. */
    actions: HumanAction[];
    lastReason: string;
    /** Once started: the task's time, `timings.totalMs` (the time it waited for a person or in the merge queue is not in it). */
    durationMs?: number;
    /** Where its time went, with each agent call and gate run (domain/taskTimings.ts). */
    timings: TaskTimings;
    usage: TokenUsage;
    transitions: Array<{ seq: number; at: string; from: TaskState; to: TaskState; event: string; reason: string }>;
    /** When it ran as several candidates (docs/candidates.md): each one's branch, gate and cost, those a budget kept from starting, and the pick. */
    candidates?: CandidatesTrace;
  }>;
  /** Done means merged or skipped: GREEN work still waiting in the merge queue is not done. */
  counts: TaskCounts;
  /** `gatePassed`: the integration gate's last result, on the commit it names (when the log records one). */
  integration: RunState['integration'] & { gatePassed?: boolean };
  usage: { total: TokenUsage; byRole: Partial<Record<AgentRole, TokenUsage>>; byAgent: Record<string, TokenUsage>; byTask: Record<string, TokenUsage>; calls: number };
  /** The run's pull requests and what `watch` last saw on each (absent fields: never watched). */
  pullRequests: PullRequestSummary[];
  warnings: string[];
  summary?: string;
}

export interface PullRequestSummary {
  taskId: string | null;
  number: number;
  url: string;
  head: string;
  base: string;
  state?: 'open' | 'closed' | 'merged';
  checks?: Array<{ name: string; status: CheckStatus }>;
  review?: ReviewVerdict;
  /** Fixes `watch` pushed, and the ones it gave up on. */
  fixesPushed: number;
  fixesFailed: number;
  watch?: NonNullable<PullRequestRecord['watch']>;
  /** Red since then with no progress, and escalated (`watch --escalate-after`). */
  escalatedSince?: string;
  /** Merged by `watch --auto-merge`. */
  mergedByTaskloom?: boolean;
  /** What `watch` left alone (reviews and comments by people without write access, untrusted bots, a fork's check output), oldest first. */
  ignored: IgnoredInput[];
}

/** The run's pull requests in one shape for the CLI, the tree and the run view. */
export function pullRequestSummaries(state: RunState): PullRequestSummary[] {
  return Object.entries(state.pullRequests).map(([key, pr]) => ({
    taskId: key === '' ? null : key,
    number: pr.number,
    url: pr.url,
    head: pr.head,
    base: pr.base,
    ...(pr.observed ? { state: pr.observed.state, checks: pr.observed.checks, review: pr.observed.review } : {}),
    fixesPushed: pr.reactions.filter((r) => r.status === 'pushed').length,
    fixesFailed: pr.reactions.filter((r) => r.status === 'failed').length,
    ...(pr.watch ? { watch: pr.watch } : {}),
    ...(pr.red?.escalated ? { escalatedSince: pr.red.since } : {}),
    ...(pr.mergedByTaskloom ? { mergedByTaskloom: true } : {}),
    ignored: pr.ignored ?? [],
  }));
}

/** `clock`: when the timings are read (without one, as of the run's last event). */
export function buildTraceReport(state: RunState, clock?: TimingClock): TraceReport {
  return {
    runId: state.runId,
    goal: state.goal,
    status: state.status,
    baseCommit: state.baseCommit,
    baseRef: state.baseRef,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    tasks: state.taskOrder.map((id) => {
      const t = state.tasks[id]!;
      const timings = taskTimings(state, t, clock);
      return {
        id,
        title: t.title,
        state: t.state,
        dependsOn: t.dependsOn,
        ...(t.branch ? { branch: t.branch } : {}),
        attempts: t.attempts.length,
        gateFailures: t.transitions.filter((tr) => tr.event === 'MECHANICAL_FAILED' || tr.event === 'INTEGRATION_GATE_FAILED').length,
        reviewCycles: t.transitions.filter((tr) => tr.event === 'CRITIC_CHANGES_REQUIRED').length,
        mergeConflicts: t.mergeConflicts ?? 0,
        ...(t.queueProblem ? { queueProblem: { kind: t.queueProblem.kind, ...(t.queueProblem.kind === 'conflict' ? { files: t.queueProblem.files } : {}) } } : {}),
        ...(t.mergeCommit ? { mergeCommit: t.mergeCommit } : {}),
        overlapWarnings: t.overlapWarnings ?? [],
        actions: allowedHumanActions(t),
        lastReason: t.lastReason,
        ...(t.startedAt ? { durationMs: timings.totalMs } : {}),
        timings,
        usage: t.usage,
        transitions: t.transitions.map(({ seq, at, from, to, event, reason }) => ({ seq, at, from, to, event, reason })),
        ...(t.candidates ? { candidates: candidatesTrace(t.candidates) } : {}),
      };
    }),
    counts: countTasks(state),
    integration: { ...state.integration, ...(state.integration.lastGate ? { gatePassed: state.integration.lastGate.passed } : {}) },
    usage: state.usage,
    pullRequests: pullRequestSummaries(state),
    warnings: state.warnings,
    ...(state.finishedSummary ? { summary: state.finishedSummary } : {}),
  };
}


/** Where a pull request stands, in the words the CLI, the Runs tree and the run view all use: "checks pass; approved; 2 fixes pushed". */
export function pullRequestWords(pr: PullRequestSummary): string {
  const checks = pr.checks ? checksWords(pr.checks) : 'not watched yet';
  const review = pr.review ? `; ${REVIEW_WORDS[pr.review]}` : '';
  const fixes = pr.fixesPushed || pr.fixesFailed ? `; ${counted(pr.fixesPushed, 'fix', 'fixes')} pushed${pr.fixesFailed ? `, ${pr.fixesFailed} failed` : ''}` : '';
  const ignored = pr.ignored.length ? `; ${counted(pr.ignored.length, 'input')} ignored` : '';
  const escalated = pr.escalatedSince ? `; escalated: red since ${pr.escalatedSince}` : '';
  const merged = pr.mergedByTaskloom ? '; merged by Taskloom' : '';
  return `${checks}${review}${fixes}${ignored}${escalated}${merged}`;
}

export interface CandidatesTrace {
  entries: Array<Pick<CandidateView, 'candidate' | 'agent' | 'model' | 'branch' | 'commit' | 'passed' | 'failure' | 'filesChanged' | 'usage'> & { gate: Array<{ command: string; exitCode: number | null }> }>;
  skipped: CandidatesView['skipped'];
  picked?: CandidatesView['picked'];
}

function candidatesTrace(view: CandidatesView): CandidatesTrace {
  const entries = view.entries.map((c) => ({
    candidate: c.candidate,
    agent: c.agent,
    ...(c.model ? { model: c.model } : {}),
    branch: c.branch,
    ...(c.commit ? { commit: c.commit } : {}),
    ...(c.passed !== undefined ? { passed: c.passed } : {}),
    ...(c.failure ? { failure: c.failure } : {}),
    filesChanged: c.filesChanged,
    usage: c.usage,
    gate: c.commands.map((r) => ({ command: r.command, exitCode: r.exitCode })),
  }));
  return { entries, skipped: view.skipped, ...(view.picked ? { picked: view.picked } : {}) };
}
