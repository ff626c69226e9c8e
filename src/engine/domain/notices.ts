import type { CheckStatus, RunEndStatus, RunEvent } from './events';
import type { RunState } from './runState';
import { totalTokens, type TokenUsage } from './usage';

/**
 * What a person away from the editor wants word of: the moments a run needs them or is over.
 * Only run metadata and reasons: never file contents, diffs or logs.
 */
export type Notice =
  | { kind: 'plan_ready'; tasks: number }
  | { kind: 'task_needs_you'; taskId: string; reason: string }
  | { kind: 'run_finished'; status: RunEndStatus; summary: string }
  | { kind: 'checks_changed'; number: number; url?: string; to: ChecksColor; failing: string[] }
  | { kind: 'pull_request_escalated'; number: number; url: string; failing: string[]; afterMinutes: number }
  | { kind: 'budget_near'; spent: string }
  | { kind: 'task_budget_near'; taskId: string; spent: string };

export type ChecksColor = 'red' | 'green';

/** What following a run remembers between events: the last color of each pull request's checks, and which budget warnings went out. */
export interface NoticeMemory {
  checks: Record<number, ChecksColor>;
  budgetWarned: boolean;
  /** The tasks told of nearing their own budget (`--task-budget-usd`, `--task-budget-tokens`). */
  taskBudgetsWarned: readonly string[];
}

/**
 * What following `state` from now on starts from: the checks' colors as last recorded (a flip
 * while no Taskloom process watched is told at the next look), and the budget warning as sent
 * when the run already spent that much.
 */
export function noticeMemoryOf(state: RunState): NoticeMemory {
  const checks: Record<number, ChecksColor> = {};
  for (const pr of Object.values(state.pullRequests)) {
    const color = pr.observed && checksColor(pr.observed.checks.map((check) => check.status));
    if (color) checks[pr.number] = color;
  }
  const taskBudgetsWarned = Object.keys(state.tasks).filter((taskId) => taskBudgetNear(state, taskId) !== undefined);
  return { checks, budgetWarned: budgetNear(state) !== undefined, taskBudgetsWarned };
}

/** A budget's share at which the user is told, once per run (and once per task for a task's budget), before the run stops on it. */
export const BUDGET_WARNING_SHARE = 0.8;

/** The notices `event` (already folded into `state`) gives, and what to remember for the next event. */
export function noticesFor(memory: NoticeMemory, event: RunEvent, state: RunState): { notices: Notice[]; memory: NoticeMemory } {
  const notices: Notice[] = [];
  let next = memory;
  switch (event.type) {
    case 'plan_reviewed':
      notices.push({ kind: 'plan_ready', tasks: state.plan.tasks.length });
      break;
    case 'task_transition':
      if (event.to === 'NEEDS_HUMAN') notices.push({ kind: 'task_needs_you', taskId: event.taskId, reason: event.reason });
      break;
    case 'run_finished':
      if (event.status !== 'paused') notices.push({ kind: 'run_finished', status: event.status, summary: event.summary });
      break;
    case 'pr_observed': {
      const color = checksColor(event.checks.map((check) => check.status));
      const before = memory.checks[event.number];
      if (color) next = { ...next, checks: { ...next.checks, [event.number]: color } };
      // The first sight only sets the color: word goes out when it turns.
      if (color && before && before !== color) {
        const failing = event.checks.filter((check) => check.status === 'failure').map((check) => check.name);
        notices.push({ kind: 'checks_changed', number: event.number, url: Object.values(state.pullRequests).find((pr) => pr.number === event.number)?.url, to: color, failing });
      }
      break;
    }
    case 'pull_request_escalated':
      notices.push({ kind: 'pull_request_escalated', number: event.number, url: event.url, failing: event.failing, afterMinutes: event.afterMinutes });
      break;
  }
  if (!next.budgetWarned && event.type === 'runner_call') {
    const spent = budgetNear(state);
    if (spent) {
      notices.push({ kind: 'budget_near', spent });
      next = { ...next, budgetWarned: true };
    }
  }
  const taskId = event.type === 'runner_call' ? event.taskId : null;
  if (taskId !== null && !next.taskBudgetsWarned.includes(taskId)) {
    const spent = taskBudgetNear(state, taskId);
    if (spent) {
      notices.push({ kind: 'task_budget_near', taskId, spent });
      next = { ...next, taskBudgetsWarned: [...next.taskBudgetsWarned, taskId] };
    }
  }
  return { notices, memory: next };
}

/** Red when a check failed, green when all passed; undefined while any still runs (or there are none). */
function checksColor(statuses: CheckStatus[]): ChecksColor | undefined {
  if (statuses.includes('failure')) return 'red';
  if (statuses.length > 0 && statuses.every((status) => status === 'success')) return 'green';
  return undefined;
}

/** What the run spent of a run budget once it reached BUDGET_WARNING_SHARE of it. */
function budgetNear(state: RunState): string | undefined {
  const budgets = state.config.budgets;
  return spentNear("the run's", state.usage.total, budgets?.runUsd, budgets?.runTokens);
}

/** What task `taskId` spent of a task budget once it reached BUDGET_WARNING_SHARE of it. */
function taskBudgetNear(state: RunState, taskId: string): string | undefined {
  const budgets = state.config.budgets;
  const task = state.tasks[taskId];
  return task ? spentNear('its', task.usage, budgets?.taskUsd, budgets?.taskTokens) : undefined;
}

function spentNear(whose: string, used: TokenUsage, usd: number | undefined, tokenLimit: number | undefined): string | undefined {
  if (usd !== undefined && used.costUsd >= usd * BUDGET_WARNING_SHARE) {
    return `$${used.costUsd.toFixed(2)} of ${whose} $${usd.toFixed(2)} budget`;
  }
  const tokens = totalTokens(used);
  if (tokenLimit !== undefined && tokens >= tokenLimit * BUDGET_WARNING_SHARE) {
    return `${tokens.toLocaleString('en-US')} of ${whose} ${tokenLimit.toLocaleString('en-US')} token budget`;
  }
  return undefined;
}
