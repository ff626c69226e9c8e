import type { GateCommandResult, HumanAction, RunEvent, RunEndStatus } from './events';
import type { TestRef } from './gateTests';
import type { TaskState } from './taskStates';
import { addUsage, ZERO_USAGE, type TokenUsage } from './usage';
import { blockingFindings, type CriticFinding } from './verdict';

/**
 * One run's outcomes in numbers, folded from its events (`summariseEvent`, pure): what `taskloom
 * stats` adds up across runs. Plain JSON, so the store keeps it beside the log as a cache and
 * folds only the events written since (store/runSummaryFile.ts); a change to what it holds or how
 * it folds bumps RUN_SUMMARY_VERSION there.
 */
export interface RunSummary {
  runId: string;
  /** When the run was created (its first event). */
  startedAt: string;
  /** The last event's time and seq. */
  lastAt: string;
  lastSeq: number;
  /** How it last stopped (run_finished, or run_paused: 'paused'); undefined while it never stopped, or goes on since. */
  endStatus?: RunEndStatus;
  planApproved: boolean;
  /** The tasks of the run's plan, by id (the plan as last proposed). */
  tasks: Record<string, TaskSummary>;
  /** Every agent call of the run, by agent, model and role (the call's own). */
  calls: { byAgent: Record<string, CallTally>; byModel: Record<string, CallTally>; byRole: Record<string, CallTally> };
  /** Reviews by the critic that gave them, by agent, model and role ("critic"). */
  reviews: { byAgent: Record<string, ReviewTally>; byModel: Record<string, ReviewTally>; byRole: Record<string, ReviewTally> };
  /** Blocking findings of the reviews that sent work back, by category. */
  sendBackCategories: Record<string, number>;
  /** Each gate command run (task, candidate and integration gates, cached results left out): runs and failures. */
  gateCommands: Record<string, { runs: number; failures: number }>;
  /** Tests that failed a gate (new failures against the base), and tests found flaky, by test id. */
  failingTests: Record<string, TestTally>;
  flakyTests: Record<string, TestTally>;
  /** Each task's last critic call (agent, model), to credit the verdict that follows it. */
  lastCritic: Record<string, { agent: string; model: string }>;
}

export interface TaskSummary {
  /** The agent and model of its first actor call: whose work it is, in the groups. */
  actor?: { agent: string; model: string };
  state: TaskState;
  merged: boolean;
  /** Whether its first gate result passed (undefined: never gated). */
  firstGatePassed?: boolean;
  reviews: number;
  sendBacks: number;
  humanDecisions: Partial<Record<HumanAction, number>>;
  /** Every agent call for this task, all roles. */
  usage: TokenUsage;
  /** When its first build started and when it merged. */
  startedAt?: string;
  mergedAt?: string;
}

export interface CallTally {
  calls: number;
  /** Calls that did not end `ok`. */
  failedCalls: number;
  usage: TokenUsage;
  callMs: number;
}

export interface ReviewTally {
  reviews: number;
  sendBacks: number;
}

export interface TestTally {
  name: string;
  file?: string;
  count: number;
}

/** The summary of a run before any of its events. */
export function emptyRunSummary(runId: string): RunSummary {
  return {
    runId,
    startedAt: '',
    lastAt: '',
    lastSeq: 0,
    planApproved: false,
    tasks: {},
    calls: { byAgent: {}, byModel: {}, byRole: {} },
    reviews: { byAgent: {}, byModel: {}, byRole: {} },
    sendBackCategories: {},
    gateCommands: {},
    failingTests: {},
    flakyTests: {},
    lastCritic: {},
  };
}

/** Folds one event into the summary, in place (events in seq order, each once). */
export function summariseEvent(s: RunSummary, e: RunEvent): void {
  s.lastSeq = e.seq;
  s.lastAt = e.at;
  switch (e.type) {
    case 'run_created':
      s.startedAt = e.at;
      installTasks(s, e.plan.tasks);
      return;
    case 'plan_proposed':
      installTasks(s, e.plan.tasks);
      return;
    case 'plan_approved':
      s.planApproved = true;
      return;
    case 'run_finished':
      s.endStatus = e.status;
      return;
    case 'run_paused':
      s.endStatus = 'paused';
      return;
    case 'run_resumed':
      delete s.endStatus;
      return;
    case 'task_transition': {
      const task = taskOf(s, e.taskId);
      task.state = e.to;
      if (e.event === 'BUILD_STARTED') task.startedAt ??= e.at;
      return;
    }
    case 'merge_done': {
      const task = taskOf(s, e.taskId);
      task.merged = true;
      task.mergedAt ??= e.at;
      return;
    }
    case 'human_decision': {
      const decisions = taskOf(s, e.taskId).humanDecisions;
      decisions[e.action] = (decisions[e.action] ?? 0) + 1;
      return;
    }
    case 'runner_call':
      countCall(s, e);
      return;
    case 'critic_verdict':
      countVerdict(s, e.taskId, blockingFindings(e.verdict));
      return;
    case 'gate_result':
      if (e.taskId !== null) {
        const task = taskOf(s, e.taskId);
        task.firstGatePassed ??= e.passed;
      }
      // A cached result ran nothing: its commands were counted when they ran.
      if (!e.cachedFrom) for (const command of e.commands) countCommand(s, command);
      return;
    case 'candidate_finished':
      // Each candidate's gate ran (the task's own result is then served from the picked one's);
      // with `failure`, the commands are its worktree setup's, no gate's.
      if (!e.failure) for (const command of e.commands) countCommand(s, command);
      return;
    default:
      return;
  }
}

function installTasks(s: RunSummary, tasks: ReadonlyArray<{ id: string }>): void {
  s.tasks = Object.fromEntries(tasks.map((t) => [t.id, newTask()]));
}

const newTask = (): TaskSummary => ({ state: 'PENDING', merged: false, reviews: 0, sendBacks: 0, humanDecisions: {}, usage: { ...ZERO_USAGE } });

/** A task the plan did not name (a log an older release wrote oddly) is counted all the same. */
function taskOf(s: RunSummary, taskId: string): TaskSummary {
  return (s.tasks[taskId] ??= newTask());
}

function countCall(s: RunSummary, e: Extract<RunEvent, { type: 'runner_call' }>): void {
  const add = (groups: Record<string, CallTally>, key: string) => {
    const tally = (groups[key] ??= { calls: 0, failedCalls: 0, usage: { ...ZERO_USAGE }, callMs: 0 });
    tally.calls += 1;
    if (e.status !== 'ok') tally.failedCalls += 1;
    tally.usage = addUsage(tally.usage, e.usage);
    tally.callMs += e.durationMs;
  };
  add(s.calls.byAgent, e.agent);
  add(s.calls.byModel, e.model);
  add(s.calls.byRole, e.role);
  if (e.taskId === null) return;
  const task = taskOf(s, e.taskId);
  task.usage = addUsage(task.usage, e.usage);
  if (e.role === 'actor') task.actor ??= { agent: e.agent, model: e.model };
  if (e.role === 'critic') s.lastCritic[e.taskId] = { agent: e.agent, model: e.model };
}

function countVerdict(s: RunSummary, taskId: string, blocking: CriticFinding[]): void {
  const task = taskOf(s, taskId);
  const sentBack = blocking.length > 0;
  task.reviews += 1;
  if (sentBack) task.sendBacks += 1;
  for (const finding of blocking) s.sendBackCategories[finding.category] = (s.sendBackCategories[finding.category] ?? 0) + 1;
  const critic = s.lastCritic[taskId] ?? { agent: 'unknown', model: 'unknown' };
  for (const [groups, key] of [[s.reviews.byAgent, critic.agent], [s.reviews.byModel, critic.model], [s.reviews.byRole, 'critic']] as const) {
    const tally = (groups[key] ??= { reviews: 0, sendBacks: 0 });
    tally.reviews += 1;
    if (sentBack) tally.sendBacks += 1;
  }
}

function countCommand(s: RunSummary, c: GateCommandResult): void {
  const tally = (s.gateCommands[c.command] ??= { runs: 0, failures: 0 });
  tally.runs += 1;
  // An advisory command's failure fails no gate (the user chose so for this run).
  if (c.exitCode !== 0 && !c.advisory) tally.failures += 1;
  if (!c.tests) return;
  countTests(s.failingTests, c.tests.newFailures);
  countTests(s.flakyTests, c.tests.flaky);
}

function countTests(tally: Record<string, TestTally>, tests: readonly TestRef[]): void {
  for (const t of tests) {
    const entry = (tally[t.id] ??= { name: t.name, ...(t.file ? { file: t.file } : {}), count: 0 });
    entry.count += 1;
  }
}

