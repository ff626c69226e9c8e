import { EVENT_SCHEMA_VERSION, type EventOf, type RunEvent } from './events';
import { PULL_REQUEST_HANDLERS } from './pullRequestProjection';
import { decide, failedCommandOf, taskOf } from './decisionLedger';
import { QUEUE_HANDLERS, recordIntegrationGate } from './queueProjection';
import { GATE_HANDLERS } from './gateProjection';
import { CANDIDATE_HANDLERS, settleCandidates } from './candidateProjection';
import { gateJudgement } from './gateTests';
import { MESSAGE_HANDLERS } from './taskMessageProjection';
import { endTranscript, interruptOpenTranscripts, TRANSCRIPT_HANDLERS } from './transcriptProjection';
import type { DecisionFactOf } from './decisionFact';
import { PROJECTION_VERSION, type RunState, type TaskView } from './runState';
import { TaskStateMachine } from './taskStateMachine';
import { isInFlight, isQueued, isSettled, type TaskEvent, type TaskState } from './taskStates';
import { addUsage, ZERO_USAGE } from './usage';
import { blockingFindings, findingFingerprint } from './verdict';
import type { Plan, PlanTask } from './plan';
import { TaskloomError } from './taskloomError';

/** An event of a format newer than this release reads: the log is the user's, so it is refused, never misread. */
export class UnsupportedEventError extends TaskloomError {
  override readonly name = 'UnsupportedEventError';
  constructor(message: string) {
    super('needs_environment', message, 'Update Taskloom: this run was written by a newer release.');
  }
}

/**
 * The pure projection: the state after `event`, leaving `state` untouched. Everything shown
 * or decided (tree, webview, trace, run.json, DECISIONS.md, resume) is derived through here.
 */
export function project(state: RunState | undefined, event: RunEvent): RunState {
  return applyEvent(state === undefined ? undefined : structuredClone(state), event);
}

/** Folds a whole log (or a snapshot plus the tail after it) without copying per event. */
export function foldEvents(events: Iterable<RunEvent>, snapshot?: RunState): RunState | undefined {
  let state = snapshot === undefined ? undefined : structuredClone(snapshot);
  for (const event of events) state = applyEvent(state, event);
  return state;
}

/**
 * Applies one event in place and returns the state. Only for an owner of `state` (the
 * engine's live session, `foldEvents`): everyone else uses `project`.
 */
export function applyEvent(state: RunState | undefined, event: RunEvent): RunState {
  if ((event.v ?? 1) > EVENT_SCHEMA_VERSION) {
    throw new UnsupportedEventError(`Event ${event.seq} has format version ${event.v}; this release reads up to ${EVENT_SCHEMA_VERSION}`);
  }
  if (event.type === 'run_created') return createRunState(event);
  if (!state) throw new Error(`Event ${event.seq} (${event.type}) comes before run_created`);
  if (event.seq <= state.lastSeq) throw new Error(`Event seq ${event.seq} is not after ${state.lastSeq}`);
  state.lastSeq = event.seq;
  HANDLERS[event.type](state, event as never);
  // After the handler: run_resumed reads when the event before it happened (where a dead process stopped).
  state.updatedAt = event.at;
  return state;
}

type Handlers = { [T in RunEvent['type']]: (state: RunState, event: EventOf<T>) => void };

const HANDLERS: Handlers = {
  ...QUEUE_HANDLERS,
  ...PULL_REQUEST_HANDLERS,
  ...GATE_HANDLERS,
  ...TRANSCRIPT_HANDLERS,
  ...MESSAGE_HANDLERS,
  ...CANDIDATE_HANDLERS,
  run_created: () => {},
  run_issue(state, e) {
    state.issue = { repo: e.repo, number: e.number, url: e.url };
    decide(state, e, 'run', { type: 'run_issue', repo: e.repo, number: e.number, author: e.author, authorTrusted: e.authorTrusted, usedComments: e.usedComments, leftOut: e.leftOut, ...(e.confirmedBy ? { confirmedBy: e.confirmedBy } : {}), ...(e.labelledBy ? { labelledBy: e.labelledBy } : {}) });
  },
  plan_proposed(state, e) {
    if (Object.values(state.tasks).some((t) => t.transitions.length > 0)) {
      throw new Error(`Event ${e.seq}: a new plan cannot replace one whose tasks have started`);
    }
    installPlan(state, e.plan);
    state.planDraftedByAgent = true;
    state.status = 'planning';
    decide(state, e, 'plan', { type: 'plan_proposed', round: e.round, plan: e.plan });
  },
  plan_reviewed(state, e) {
    decide(state, e, 'critic', { type: 'plan_reviewed', round: e.round, blocking: e.blocking, verdict: e.verdict });
  },
  plan_approved(state, e) {
    state.status = 'running';
    state.planApproved = true;
    state.planApprovedBy = e.by;
    decide(state, e, 'plan', { type: 'plan_approved', by: e.by });
  },
  task_transition(state, e) {
    const task = taskOf(state, e.taskId);
    const to = TaskStateMachine.next(task.state, e.event, e.taskId);
    if (to !== e.to) throw new Error(`Event ${e.seq}: ${e.event} from ${task.state} leads to ${to}, log says ${e.to}`);
    task.transitions.push({ seq: e.seq, at: e.at, from: task.state, to, event: e.event, reason: e.reason });
    const from = task.state;
    task.state = to;
    task.lastReason = e.reason;
    applyTransitionEffects(state, task, from, e);
    if (state.status === 'completed' || state.status === 'needs_human') state.status = 'running';
  },
  worktree_prepared(state, e) {
    const task = taskOf(state, e.taskId);
    task.branch = e.branch;
    task.worktreePath = e.path;
    task.baseCommit = e.baseCommit;
    task.needsFreshWorktree = false;
    task.builtOnMerged = [...state.integration.merged];
    if (e.fresh) task.needsSetup = e.setupKept !== true;
    if (e.port !== undefined) task.port = e.port;
  },
  worktree_setup(state, e) {
    const task = taskOf(state, e.taskId);
    task.needsSetup = !e.passed;
    decide(state, e, 'run', setupFact(e), e.taskId);
  },
  sensitive_held(state, e) {
    taskOf(state, e.taskId).sensitiveHeld = e.files;
  },
  work_committed(state, e) {
    const task = taskOf(state, e.taskId);
    const attempt = task.attempts.at(-1);
    if (attempt) attempt.commit = e.commit;
    task.changedFiles = [...new Set([...task.changedFiles, ...e.filesChanged])];
  },
  actor_snapshot(state, e) {
    taskOf(state, e.taskId);
    decide(state, e, 'run', { type: 'actor_snapshot', attempt: e.attempt, commit: e.commit, ref: e.ref }, e.taskId);
  },
  gate_result(state, e) {
    const summary = {
      passed: e.passed,
      at: e.at,
      commands: e.commands,
      ...(e.commit ? { commit: e.commit } : {}),
      ...(e.taskIds ? { taskIds: e.taskIds } : {}),
      ...(e.tree ? { tree: e.tree, attempt: e.attempt } : {}),
      ...(e.cachedFrom ? { cachedFrom: e.cachedFrom } : {}),
    };
    if (e.key && !e.cachedFrom) state.gateCache[e.key] = { seq: e.seq, taskId: e.taskId, attempt: e.attempt, passed: e.passed, commands: e.commands };
    const failed = failedCommandOf(e.commands);
    const fact = {
      type: 'gate_result' as const,
      ...(e.taskId === null ? { integration: true as const } : {}),
      passed: e.passed,
      attempt: e.attempt,
      ...(failed ? { failed } : { commands: e.commands.map((c) => c.command) }),
      ...(e.commit ? { commit: e.commit } : {}),
      ...(e.taskIds ? { taskIds: e.taskIds } : {}),
      ...gateJudgement(e.commands, e.cachedFrom),
    };
    if (e.taskId === null) {
      recordIntegrationGate(state, e);
      state.integration.lastGate = summary;
      if (!e.passed) state.integration.lastFailedGate = summary;
      decide(state, e, 'integration', fact);
    } else {
      const task = taskOf(state, e.taskId);
      task.lastGate = summary;
      const durationMs = e.commands.reduce((sum, c) => sum + c.durationMs, 0);
      task.gateRuns.push({ seq: e.seq, at: e.at, attempt: e.attempt, passed: e.passed, durationMs });
      decide(state, e, 'gate', fact, e.taskId);
    }
  },
  gate_skipped(state, e) {
    decide(state, e, 'gate', { type: 'gate_skipped', attempt: e.attempt, failedAttempt: e.failedAttempt }, e.taskId);
  },
  critic_verdict(state, e) {
    const task = taskOf(state, e.taskId);
    task.lastVerdict = e.verdict;
    task.lastVerdictSeq = e.seq;
    task.reviewsDone += 1;
    for (const finding of blockingFindings(e.verdict)) {
      const key = findingFingerprint(finding);
      task.findingRepeats[key] = (task.findingRepeats[key] ?? 0) + 1;
    }
    decide(state, e, 'critic', { type: 'critic_verdict', review: e.review, verdict: e.verdict }, e.taskId);
  },
  runner_call(state, e) {
    state.usage.calls += 1;
    state.usage.total = addUsage(state.usage.total, e.usage);
    state.usage.byRole[e.role] = addUsage(state.usage.byRole[e.role] ?? ZERO_USAGE, e.usage);
    state.usage.byAgent[e.agent] = addUsage(state.usage.byAgent[e.agent] ?? ZERO_USAGE, e.usage);
    if (e.taskId !== null) {
      state.usage.byTask[e.taskId] = addUsage(state.usage.byTask[e.taskId] ?? ZERO_USAGE, e.usage);
      const task = taskOf(state, e.taskId);
      task.usage = addUsage(task.usage, e.usage);
      task.calls.push({
        seq: e.seq,
        at: e.at,
        role: e.role,
        status: e.status,
        durationMs: e.durationMs,
        during: task.state,
        ...(e.transcript !== undefined ? { transcript: e.transcript } : {}),
      });
      const candidate = e.candidate === undefined ? undefined : task.candidates?.entries.find((c) => c.candidate === e.candidate);
      if (candidate) {
        candidate.usage = addUsage(candidate.usage, e.usage);
        if (e.sessionId) candidate.sessionId = e.sessionId;
      } else if (e.role === 'actor' && e.sessionId) {
        task.actorSessionId = e.sessionId;
        task.actorSessionAgent = e.agent;
      }
    }
    if (e.transcript !== undefined) endTranscript(state, e.taskId, e.transcript, e.status);
  },
  human_decision(state, e) {
    const task = taskOf(state, e.taskId);
    if (e.action === 'retry') task.humanNote = e.note;
    if (e.action === 'accept' && task.sensitiveHeld) {
      task.sensitiveApproved = [...new Set([...(task.sensitiveApproved ?? []), ...task.sensitiveHeld.map((c) => c.path)])];
    }
    task.sensitiveHeld = undefined;
    decide(state, e, 'human', { type: 'human_decision', action: e.action, ...(e.note ? { note: e.note } : {}) }, e.taskId);
  },
  run_applied(state, e) {
    state.applied = { branch: e.branch, commit: e.commit, history: e.history, commits: e.commits, at: e.at };
    decide(state, e, 'run', { type: 'run_applied', branch: e.branch, commit: e.commit, history: e.history, commits: e.commits });
  },
  confinement(state, e) {
    state.confinement = e.confined ? { confined: true, mode: e.mode, mechanism: e.mechanism ?? '' } : { confined: false, mode: e.mode, reason: e.reason ?? '' };
    decide(state, e, 'run', { type: 'confinement', mode: e.mode, confined: e.confined, ...(e.mechanism ? { mechanism: e.mechanism } : {}), ...(e.reason ? { reason: e.reason } : {}) });
  },
  run_paused(state, e) {
    state.status = 'paused';
    state.pausedReason = e.reason;
    decide(state, e, 'run', { type: 'run_paused', reason: e.reason });
  },
  run_resumed(state, e) {
    // Stopped since the run ended, or (a process that died leaves no end) since its last event.
    const open = state.stops.at(-1);
    if (open && open.to === undefined) open.to = e.at;
    else state.stops.push({ from: state.updatedAt, to: e.at });
    state.status = 'running';
    state.pausedReason = undefined;
    state.finishedSummary = undefined;
    state.finishedCounts = undefined;
    interruptOpenTranscripts(state);
    decide(state, e, 'run', { type: 'run_resumed', reason: e.reason });
  },
  run_finished(state, e) {
    const last = state.stops.at(-1);
    if (!last || last.to !== undefined) state.stops.push({ from: e.at });
    state.status = e.status;
    state.finishedSummary = e.summary;
    state.finishedCounts = e.counts;
    if (e.rejectedPlan !== undefined) state.rejectedPlan = e.rejectedPlan;
    decide(state, e, 'run', { type: 'run_finished', status: e.status, summary: e.summary });
  },
  warning(state, e) {
    state.warnings.push(e.taskId ? `${e.taskId}: ${e.message}` : e.message);
  },
};

/** Values for a task's fields: no object, which every task it was assigned to would share (undefined clears one). */
type TaskFieldValues = { [K in keyof TaskView]?: Exclude<TaskView[K], object> };

/** Fields a transition sets to the same values whatever the task held, by its event. */
const TRANSITION_SETS: Partial<Record<TaskEvent, TaskFieldValues>> = {
  CRITIC_GREEN: { unverified: false },
  CRITIC_UNAVAILABLE: { unverified: true },
  MERGE_VERIFIED: { queueProblem: undefined, resolution: undefined },
  // Back to the approved work (greenCommit): what was being resolved or fixed since is dropped.
  REQUEUED: { resolution: undefined },
  // The interrupted try's work is discarded, so the new try is numbered like a first run.
  INTERRUPTED: {
    attempt: 0,
    resolutions: 0,
    needsFreshWorktree: true,
    actorSessionId: undefined,
    actorSessionAgent: undefined,
    queueProblem: undefined,
    resolution: undefined,
  },
  HUMAN_RETRY: { skippedByDependency: false },
  HANDED_BACK: { skippedByDependency: false },
  DEPENDENCY_FAILED: { skippedByDependency: true },
  DEPENDENCY_RETRIED: { skippedByDependency: false },
  HUMAN_SKIPPED: { skippedByDependency: false, queueProblem: undefined, resolution: undefined },
  HUMAN_ACCEPTED: { acceptedByHuman: true, unverified: false },
  CANCELLED: { needsFreshWorktree: true },
};

/** The counter of the run's limits a transition adds one to, by its event. */
const TRANSITION_COUNTS: Partial<Record<TaskEvent, 'gateFailures' | 'mergeConflicts' | 'reviewCycles'>> = {
  MECHANICAL_FAILED: 'gateFailures',
  // The same limit as a failure of the task's own gate: it is the gate, run on the merged result.
  INTEGRATION_GATE_FAILED: 'gateFailures',
  MERGE_CONFLICTED: 'mergeConflicts',
  CRITIC_CHANGES_REQUIRED: 'reviewCycles',
};

function applyTransitionEffects(state: RunState, task: TaskView, from: TaskState, e: EventOf<'task_transition'>): void {
  const current = task.attempts.at(-1);
  Object.assign(task, TRANSITION_SETS[e.event]);
  // Held by a person only until the task moves on: any other transition ends it.
  task.withPerson = e.event === 'HUMAN_STOPPED' ? 'stopped' : e.event === 'HUMAN_TOOK_OVER' ? 'taken_over' : undefined;
  const counter = TRANSITION_COUNTS[e.event];
  if (counter) task[counter] += 1;
  // What takes more than fixed values: a new attempt, fresh limits, what the merge queue holds.
  switch (e.event) {
    case 'BUILD_STARTED':
    case 'RETRY_BUILD':
    case 'RESOLVE_STARTED':
      task.attempt += 1;
      task.attempts.push({ number: task.attempt, startedAt: e.at, ...(e.event === 'RESOLVE_STARTED' ? { kind: 'resolve' as const } : {}) });
      if (e.event === 'RESOLVE_STARTED') task.resolutions += 1;
      task.startedAt ??= e.at;
      task.finishedAt = undefined;
      break;
    case 'INTEGRATION_GATE_FAILED':
      if (state.integration.lastFailedGate) task.queueProblem = { kind: 'integration_gate', gate: state.integration.lastFailedGate };
      break;
    case 'INTERRUPTED':
      grantFreshLimits(task);
      task.changedFiles = [];
      // The try starts over from its start commit: the picked candidate's work is taken into it again.
      if (task.candidates?.picked) task.candidates.settled = false;
      break;
    case 'HUMAN_RETRY':
    case 'HANDED_BACK':
      // The human grants a fresh set of limits; the worktree and the attempt numbering go on.
      grantFreshLimits(task);
      break;
    case 'BUILD_FINISHED':
      settleCandidates(task);
      break;
    case 'HUMAN_SKIPPED':
      state.integration.conflicts = state.integration.conflicts.filter((c) => c.taskId !== task.id);
      break;
    default:
      break;
  }
  // An attempt lasts from its start (build, retry, resolution) until its loop stops moving on.
  const attemptGoesOn = e.to === 'GATING' || e.to === 'CRITIC_REVIEWING' || e.to === 'BUILDING' || e.to === 'RESOLVING';
  if (current && current.endedAt === undefined && isInFlight(from) && !attemptGoesOn) {
    current.endedAt = e.at;
    current.outcome = { state: e.to, reason: e.reason };
  }
  // The task's own work ends when it is approved (or stops); the merge queue does not add to it.
  const queueStep = e.event === 'MERGE_STARTED' || e.event === 'MERGE_VERIFIED' || (from === 'MERGING' && e.event === 'REQUEUED');
  if (!queueStep && (isSettled(e.to) || isQueued(e.to))) task.finishedAt = e.at;
}

function setupFact(e: EventOf<'worktree_setup'>): DecisionFactOf<'worktree_setup'> {
  const failed = failedCommandOf(e.commands);
  const lastCommand = e.commands.at(-1)?.command;
  return {
    type: 'worktree_setup',
    copied: e.copied,
    copiedCount: e.copiedCount,
    notIgnored: e.notIgnored,
    commands: e.commands.length,
    ...(e.cancelled ? { cancelled: true } : {}),
    ...(e.cancelled && lastCommand !== undefined ? { lastCommand } : {}),
    ...(failed ? { failed } : {}),
  };
}

function createRunState(e: EventOf<'run_created'>): RunState {
  const state: RunState = {
    projectionVersion: PROJECTION_VERSION,
    runId: e.runId,
    goal: e.goal,
    // A plan handed in waits for its approval as a drafted one does: plan_approved sets the run going.
    status: 'planning',
    createdAt: e.at,
    updatedAt: e.at,
    repoRoot: e.repoRoot,
    baseCommit: e.baseCommit,
    baseRef: e.baseRef,
    ignoredChanges: e.ignoredChanges,
    createdBy: e.createdBy,
    config: e.config,
    plan: e.plan,
    planApproved: false,
    taskOrder: [],
    tasks: {},
    decisions: [],
    usage: { total: { ...ZERO_USAGE }, byRole: {}, byAgent: {}, byTask: {}, calls: 0 },
    integration: { merged: [], conflicts: [], batches: 0, batchRecords: [], overlapMode: e.config.overlap ?? 'off', overlaps: [], overlapsPredicted: false },
    warnings: [],
    gateCache: {},
    missedRegressions: 0,
    pullRequests: {},
    stops: [],
    transcripts: [],
    inboxRequests: [],
    lastSeq: e.seq,
  };
  installPlan(state, e.plan);
  decide(state, e, 'plan', { type: 'run_created', goal: e.goal, plan: e.plan, baseCommit: e.baseCommit, ignoredChanges: e.ignoredChanges });
  return state;
}

function installPlan(state: RunState, plan: Plan): void {
  state.plan = plan;
  state.taskOrder = plan.tasks.map((t) => t.id);
  state.tasks = Object.fromEntries(plan.tasks.map((t) => [t.id, newTask(t)]));
}

function newTask(t: PlanTask): TaskView {
  return {
    id: t.id,
    title: t.title,
    dependsOn: [...t.dependsOn],
    state: 'PENDING',
    lastReason: 'waiting to start',
    transitions: [],
    attempts: [],
    attempt: 0,
    gateFailures: 0,
    reviewCycles: 0,
    reviewsDone: 0,
    needsFreshWorktree: false,
    acceptedByHuman: false,
    skippedByDependency: false,
    findingRepeats: {},
    changedFiles: [],
    builtOnMerged: [],
    resolutions: 0,
    mergeConflicts: 0,
    unverified: false,
    overlapWarnings: [],
    usage: { ...ZERO_USAGE },
    calls: [],
    gateRuns: [],
    transcripts: [],
    messages: [],
  };
}

/** The counters the run's limits are checked against, and a past acceptance: a new try starts with none. */
function grantFreshLimits(task: TaskView): void {
  task.gateFailures = 0;
  task.reviewCycles = 0;
  task.reviewsDone = 0;
  task.mergeConflicts = 0;
  task.findingRepeats = {};
  task.acceptedByHuman = false;
}
