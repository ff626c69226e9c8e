import type { GateCommandResult } from './events';
import type { PlanTask } from './plan';
import type { RoleAgent, RunConfig } from './runConfig';
import { budgetStop } from './budget';
import { humanActionRefusal } from './humanActions';
import type { TaskView } from './runState';
import type { RunState } from './runState';
import { totalTokens, type TokenUsage } from './usage';

/** `taskloom.candidates.*` (`--candidates`, `--candidate-agents`): how many tries a task starts at once, and by whom. */
export interface CandidatesConfig {
  /** Candidates per task (1: one try, as without candidates). A plan task's own `candidates` wins. */
  count: number;
  /** The actor of candidate k is the ((k - 1) mod n)-th; absent: each candidate uses the task's actor. */
  agents?: RoleAgent[];
  /** The critic's (or the gate's) pick waits for a person to go on with it or choose another (`--confirm-pick`); absent: it goes on. */
  confirmPick?: true;
}

/** The most candidates a task may run: each is a worktree, an actor and a gate at once. */
export const MAX_CANDIDATES = 8;

/** How many candidates `task` runs: its plan entry's own number, else the run's (1 in runs before candidates). */
export function candidateCount(config: Pick<RunConfig, 'candidates'>, task: Pick<PlanTask, 'candidates'>): number {
  return task.candidates ?? config.candidates?.count ?? 1;
}

/** The actor of candidate `candidate` (1-based), when the run mixes agents; undefined: the task's own actor. */
export function candidateActor(config: Pick<RunConfig, 'candidates'>, candidate: number): RoleAgent | undefined {
  const agents = config.candidates?.agents;
  return agents?.length ? agents[(candidate - 1) % agents.length] : undefined;
}

/** One candidate of a task, as its events tell it. */
export interface CandidateView {
  candidate: number;
  /** The agent (and model) that built it. */
  agent: string;
  model?: string;
  branch: string;
  path: string;
  baseCommit: string;
  /** Its work, once committed and gated (absent while it runs, or when its actor changed nothing). */
  commit?: string;
  filesChanged: string[];
  /** Absent while it runs. */
  passed?: boolean;
  commands: GateCommandResult[];
  /** Why its setup or its actor failed, when one did (the candidate then counts as failed, with no gate). */
  failure?: string;
  usage: TokenUsage;
  /** Its actor's conversation: the task's own once it is picked, so a retry continues it. */
  sessionId?: string;
}

/** Which candidate goes on, who chose it, and why. */
export interface CandidatePick {
  candidate: number;
  by: 'critic' | 'gate' | 'person';
  reasons: string;
  /** The candidates that passed their gate when the pick was made. */
  passed: number[];
}

/** A task's candidates: those started (and those a budget kept from starting), and the pick. */
export interface CandidatesView {
  count: number;
  entries: CandidateView[];
  /** Candidates a budget kept from starting, with the reason. */
  skipped: Array<{ candidate: number; reason: string }>;
  picked?: CandidatePick;
  /** The pick is in the task's worktree and the task's own loop goes on from it (false again after a person chose another). */
  settled: boolean;
}

/** Fewest failing gate commands first, then the lowest number: the candidate a task whose candidates all failed goes on from. */
export function bestFailedCandidate(entries: readonly CandidateView[]): CandidateView | undefined {
  const failing = (c: CandidateView) => (c.commit ? c.commands.filter((r) => r.exitCode !== 0 && !r.advisory).length : Number.MAX_SAFE_INTEGER);
  return [...entries].sort((a, b) => failing(a) - failing(b) || a.candidate - b.candidate)[0];
}

/** The pseudo task id of candidate `candidate`'s worktree and branch (`<task>--candidate-<n>`). */
export const candidateWorktreeId = (taskId: string, candidate: number): string => `${taskId}--candidate-${candidate}`;

/**
 * Why another candidate of `taskId` may not start: a budget is spent, or another candidate costing
 * what the costliest finished one did would overrun the task's or the run's budget.
 */
export function candidateBudgetStop(state: RunState, taskId: string): string | undefined {
  const spent = budgetStop(state, taskId);
  const budgets = state.config.budgets;
  const task = state.tasks[taskId];
  if (spent || !budgets || !task) return spent;
  const finished = task.candidates?.entries.filter((c) => c.passed !== undefined) ?? [];
  const usd = Math.max(0, ...finished.map((c) => c.usage.costUsd));
  const tokens = Math.max(0, ...finished.map((c) => totalTokens(c.usage)));
  const over = (limit: number | undefined, used: number, next: number) => limit !== undefined && next > 0 && used + next > limit;
  if (over(budgets.taskUsd, task.usage.costUsd, usd)) {
    return `another candidate (about $${usd.toFixed(4)}) would overrun the task "${taskId}" budget of $${budgets.taskUsd!.toFixed(2)} ($${task.usage.costUsd.toFixed(4)} used)`;
  }
  if (over(budgets.runUsd, state.usage.total.costUsd, usd)) {
    return `another candidate (about $${usd.toFixed(4)}) would overrun the run budget of $${budgets.runUsd!.toFixed(2)} ($${state.usage.total.costUsd.toFixed(4)} used)`;
  }
  if (over(budgets.taskTokens, totalTokens(task.usage), tokens)) {
    return `another candidate (about ${tokens.toLocaleString('en-US')} tokens) would overrun the task "${taskId}" budget of ${budgets.taskTokens!.toLocaleString('en-US')} tokens`;
  }
  if (over(budgets.runTokens, totalTokens(state.usage.total), tokens)) {
    return `another candidate (about ${tokens.toLocaleString('en-US')} tokens) would overrun the run budget of ${budgets.runTokens!.toLocaleString('en-US')} tokens`;
  }
  return undefined;
}

/** Whether a person may choose another of the task's candidates now: it ran as several, and it waits for them (a retry is open to it). */
export const candidateChoiceOpen = (task: TaskView): boolean =>
  (task.candidates?.entries.some((c) => c.commit) ?? false) && !task.queueProblem && humanActionRefusal(task, 'retry') === undefined;
