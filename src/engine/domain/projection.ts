import type { EventOf, RunEvent } from './events';
import type { Decision, RunState, TaskView } from './runState';
import { TaskStateMachine } from './taskStateMachine';
import { isSettled } from './taskStates';
import { addUsage, ZERO_USAGE } from './usage';
import { blockingFindings, findingFingerprint, type CriticVerdict } from './verdict';
import type { Plan, PlanTask } from './plan';

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
  if (event.type === 'run_created') return createRunState(event);
  if (!state) throw new Error(`Event ${event.seq} (${event.type}) comes before run_created`);
  if (event.seq <= state.lastSeq) throw new Error(`Event seq ${event.seq} is not after ${state.lastSeq}`);
  state.lastSeq = event.seq;
  state.updatedAt = event.at;
  HANDLERS[event.type](state, event as never);
  return state;
}

type Handlers = { [T in RunEvent['type']]: (state: RunState, event: EventOf<T>) => void };

const HANDLERS: Handlers = {
  run_created: () => {},
  plan_proposed(state, e) {
    if (Object.values(state.tasks).some((t) => t.transitions.length > 0)) {
      throw new Error(`Event ${e.seq}: a new plan cannot replace one whose tasks have started`);
    }
    installPlan(state, e.plan);
    state.status = 'planning';
    decide(state, e, 'plan', `Planner draft ${e.round}: ${e.plan.tasks.length} task(s)`, describePlan(e.plan));
  },
  plan_reviewed(state, e) {
    const verdict = e.blocking ? `changes required (${e.blocking} blocking)` : 'approved';
    decide(state, e, 'critic', `Critic review of plan draft ${e.round}: ${verdict} — ${e.verdict.summary}`, findingLines(e.verdict));
  },
  plan_approved(state, e) {
    state.status = 'running';
    state.planApproved = true;
    decide(state, e, 'plan', `Plan approved by ${e.by}`);
  },
  task_transition(state, e) {
    const task = taskOf(state, e.taskId);
    const to = TaskStateMachine.next(task.state, e.event, e.taskId);
    if (to !== e.to) throw new Error(`Event ${e.seq}: ${e.event} from ${task.state} leads to ${to}, log says ${e.to}`);
    task.transitions.push({ seq: e.seq, at: e.at, from: task.state, to, event: e.event, reason: e.reason });
    task.state = to;
    task.lastReason = e.reason;
    applyTransitionEffects(task, e);
    if (state.status === 'completed' || state.status === 'needs_human') state.status = 'running';
  },
  worktree_prepared(state, e) {
    const task = taskOf(state, e.taskId);
    task.branch = e.branch;
    task.worktreePath = e.path;
    task.baseCommit = e.baseCommit;
    task.needsFreshWorktree = false;
  },
  work_committed(state, e) {
    const attempt = taskOf(state, e.taskId).attempts.at(-1);
    if (attempt) attempt.commit = e.commit;
  },
  actor_snapshot(state, e) {
    taskOf(state, e.taskId);
    decide(
      state,
      e,
      'run',
      `Snapshot before attempt ${e.attempt}: ${e.commit.slice(0, 10)} — restore with: git checkout ${e.commit} -- .`,
      [
        `Kept as ${e.ref}; run the restore in the task worktree. Files created after the snapshot stay (see them with: git diff --stat ${e.commit}).`,
      ],
      e.taskId,
    );
  },
  gate_result(state, e) {
    const summary = { passed: e.passed, at: e.at, commands: e.commands };
    const failed = e.commands.find((c) => c.exitCode !== 0);
    const what = e.passed
      ? `passed (${e.commands.map((c) => c.command).join(', ') || 'no commands'})`
      : `failed: \`${failed?.command ?? '?'}\` ${failed?.timedOut ? 'timed out' : `exited ${failed?.exitCode}`}`;
    const details = failed ? lastLines(failed.output, 12) : undefined;
    if (e.taskId === null) {
      state.integration.lastGate = summary;
      decide(state, e, 'integration', `Integration gate ${what}`, details);
    } else {
      const task = taskOf(state, e.taskId);
      task.lastGate = summary;
      decide(state, e, 'gate', `Gate ${what} on attempt ${e.attempt}`, details, e.taskId);
    }
  },
  critic_verdict(state, e) {
    const task = taskOf(state, e.taskId);
    task.lastVerdict = e.verdict;
    for (const finding of blockingFindings(e.verdict)) {
      const key = findingFingerprint(finding);
      task.findingRepeats[key] = (task.findingRepeats[key] ?? 0) + 1;
    }
    const verdict = e.verdict.decision === 'green' ? 'green' : 'changes required';
    decide(state, e, 'critic', `Critic review ${e.review}: ${verdict} — ${e.verdict.summary}`, findingLines(e.verdict), e.taskId);
  },
  runner_call(state, e) {
    state.usage.calls += 1;
    state.usage.total = addUsage(state.usage.total, e.usage);
    state.usage.byRole[e.role] = addUsage(state.usage.byRole[e.role] ?? ZERO_USAGE, e.usage);
    if (e.taskId !== null) {
      state.usage.byTask[e.taskId] = addUsage(state.usage.byTask[e.taskId] ?? ZERO_USAGE, e.usage);
      const task = taskOf(state, e.taskId);
      task.usage = addUsage(task.usage, e.usage);
      if (e.role === 'actor' && e.sessionId) task.actorSessionId = e.sessionId;
    }
  },
  human_decision(state, e) {
    const task = taskOf(state, e.taskId);
    if (e.action === 'retry') task.humanNote = e.note;
    decide(state, e, 'human', `Human chose to ${e.action} "${e.taskId}"${e.note ? `: ${e.note}` : ''}`, undefined, e.taskId);
  },
  integration_prepared(state, e) {
    state.status = 'integrating';
    state.integration.branch = e.branch;
    state.integration.path = e.path;
  },
  merge_done(state, e) {
    if (!state.integration.merged.includes(e.taskId)) state.integration.merged.push(e.taskId);
    state.integration.conflicts = state.integration.conflicts.filter((c) => c.taskId !== e.taskId);
    const hadWork = state.tasks[e.taskId]?.attempts.some((a) => a.commit) ?? true;
    const how = !e.alreadyMerged ? `merged as ${e.commit.slice(0, 10)}` : hadWork ? 'was already merged' : 'had no changes to merge';
    decide(state, e, 'merge', `"${e.taskId}" ${how} into ${state.integration.branch ?? 'integration'}`, undefined, e.taskId);
  },
  merge_conflict(state, e) {
    state.integration.conflicts = state.integration.conflicts.filter((c) => c.taskId !== e.taskId);
    state.integration.conflicts.push({ taskId: e.taskId, files: e.files });
    decide(state, e, 'conflict', `Merging "${e.taskId}" conflicts in ${e.files.join(', ')}`, undefined, e.taskId);
  },
  run_paused(state, e) {
    state.status = 'paused';
    state.pausedReason = e.reason;
    decide(state, e, 'run', `Run paused: ${e.reason}`);
  },
  run_resumed(state, e) {
    state.status = 'running';
    state.pausedReason = undefined;
    state.finishedSummary = undefined;
    decide(state, e, 'run', `Run resumed: ${e.reason}`);
  },
  run_finished(state, e) {
    state.status = e.status;
    state.finishedSummary = e.summary;
    decide(state, e, 'run', `Run ${e.status.replace('_', ' ')}: ${e.summary}`);
  },
  warning(state, e) {
    state.warnings.push(e.taskId ? `${e.taskId}: ${e.message}` : e.message);
  },
};

function applyTransitionEffects(task: TaskView, e: EventOf<'task_transition'>): void {
  const current = task.attempts.at(-1);
  switch (e.event) {
    case 'BUILD_STARTED':
    case 'RETRY_BUILD':
      task.attempt += 1;
      task.attempts.push({ number: task.attempt, startedAt: e.at });
      task.startedAt ??= e.at;
      task.finishedAt = undefined;
      break;
    case 'MECHANICAL_FAILED':
      task.gateFailures += 1;
      break;
    case 'CRITIC_CHANGES_REQUIRED':
      task.reviewCycles += 1;
      break;
    case 'INTERRUPTED':
      // The interrupted try's work is discarded, so the new try is numbered like a first run.
      task.attempt = 0;
      task.gateFailures = 0;
      task.reviewCycles = 0;
      task.findingRepeats = {};
      task.needsFreshWorktree = true;
      task.acceptedByHuman = false;
      task.actorSessionId = undefined;
      break;
    case 'HUMAN_RETRY':
      // The human grants a fresh set of limits; the worktree and the attempt numbering go on.
      task.gateFailures = 0;
      task.reviewCycles = 0;
      task.findingRepeats = {};
      task.skippedByDependency = false;
      task.acceptedByHuman = false;
      break;
    case 'DEPENDENCY_FAILED':
      task.skippedByDependency = true;
      break;
    case 'DEPENDENCY_RETRIED':
    case 'HUMAN_SKIPPED':
      task.skippedByDependency = false;
      break;
    case 'HUMAN_ACCEPTED':
      task.acceptedByHuman = true;
      break;
    case 'CANCELLED':
      task.needsFreshWorktree = true;
      break;
    default:
      break;
  }
  if (current && current.endedAt === undefined && e.event !== 'BUILD_STARTED' && e.event !== 'RETRY_BUILD') {
    if (e.to === 'PENDING' || isSettled(e.to) || e.to === 'MECHANICAL_FAILED' || e.to === 'CHANGES_REQUIRED') {
      current.endedAt = e.at;
      current.outcome = `${e.to}: ${e.reason}`;
    }
  }
  if (isSettled(e.to)) task.finishedAt = e.at;
}

function createRunState(e: EventOf<'run_created'>): RunState {
  const state: RunState = {
    runId: e.runId,
    goal: e.goal,
    status: e.plan.tasks.length ? 'running' : 'planning',
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
    usage: { total: { ...ZERO_USAGE }, byRole: {}, byTask: {}, calls: 0 },
    integration: { merged: [], conflicts: [] },
    warnings: [],
    lastSeq: e.seq,
  };
  installPlan(state, e.plan);
  const details = e.plan.tasks.length ? describePlan(e.plan) : [];
  if (e.ignoredChanges.length) {
    details.push(`Uncommitted changes ignored (the run works from ${e.baseCommit.slice(0, 10)}): ${e.ignoredChanges.join(', ')}`);
  }
  const summary = e.plan.tasks.length ? `Plan for "${e.goal}": ${e.plan.tasks.length} task(s)` : `Planning "${e.goal}"`;
  decide(state, e, 'plan', summary, details);
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
    needsFreshWorktree: false,
    acceptedByHuman: false,
    skippedByDependency: false,
    findingRepeats: {},
    usage: { ...ZERO_USAGE },
  };
}

function describePlan(plan: Plan): string[] {
  const details = plan.tasks.map((t) => `${t.id}: ${t.title}${t.dependsOn.length ? ` (after ${t.dependsOn.join(', ')})` : ''}`);
  if (plan.rationale) details.unshift(`Why: ${plan.rationale}`);
  return details;
}

const findingLines = (verdict: CriticVerdict): string[] =>
  verdict.findings.map((f) => `[${f.severity}/${f.category}] ${f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''}${f.message}`);

const lastLines = (text: string, count: number): string[] =>
  text.split('\n').filter((line) => line.trim()).slice(-count);

function taskOf(state: RunState, taskId: string): TaskView {
  const task = state.tasks[taskId];
  if (!task) throw new Error(`Event refers to unknown task "${taskId}"`);
  return task;
}

function decide(
  state: RunState,
  e: RunEvent,
  kind: Decision['kind'],
  summary: string,
  details?: string[],
  taskId?: string,
): void {
  state.decisions.push({ seq: e.seq, at: e.at, kind, summary, ...(taskId ? { taskId } : {}), ...(details?.length ? { details } : {}) });
}
