import type { RunState } from './runState';
import { totalTokens, type TokenUsage } from './usage';

/** Spending limits, checked before every agent call; reaching one stops before the call, not after. */
export interface Budgets {
  runUsd?: number;
  runTokens?: number;
  taskUsd?: number;
  taskTokens?: number;
}

/** Why `taskId` (or the run, for null) may not make another agent call, or undefined when it may. */
export function budgetStop(state: RunState, taskId: string | null): string | undefined {
  const budgets = state.config.budgets;
  if (!budgets) return undefined;
  const run = exceeded('run', state.usage.total, budgets.runUsd, budgets.runTokens);
  if (run) return run;
  const task = taskId === null ? undefined : state.tasks[taskId];
  return task ? exceeded(`task "${taskId}"`, task.usage, budgets.taskUsd, budgets.taskTokens) : undefined;
}

function exceeded(scope: string, used: TokenUsage, usd: number | undefined, tokens: number | undefined): string | undefined {
  if (usd !== undefined && used.costUsd >= usd) {
    return `the ${scope} budget of $${usd.toFixed(2)} is spent ($${used.costUsd.toFixed(4)} used)`;
  }
  if (tokens !== undefined && totalTokens(used) >= tokens) {
    return `the ${scope} budget of ${tokens.toLocaleString('en-US')} tokens is spent (${totalTokens(used).toLocaleString('en-US')} used)`;
  }
  return undefined;
}
