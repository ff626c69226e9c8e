// Tokens and dollars per role, per agent, per task and in total, shaped for the usage tables and charts.
// Pure: reads the projection's UsageSummary, never recounts events.
import type { AgentRole } from '../../engine/domain/events';
import type { RunState } from '../../engine/domain/runState';
import { addUsage, totalTokens, ZERO_USAGE, type TokenUsage } from '../../engine/domain/usage';

export interface UsageRow {
  key: string;
  label: string;
  usage: TokenUsage;
  /** The row's task id, for rows that are tasks. */
  taskId?: string;
}

export interface UsageTables {
  byRole: UsageRow[];
  /** By the agent that made the calls (a run may have a different one per role); empty in runs from before roles. */
  byAgent: UsageRow[];
  /** Tasks in plan order, then tasks no longer in the plan, then calls that belong to no task. */
  byTask: UsageRow[];
  total: TokenUsage;
  calls: number;
}

export interface ChartBar {
  key: string;
  label: string;
  value: number;
  taskId?: string;
}

/** The row for calls that belong to no task (the planner, the integration). */
export const NO_TASK_LABEL = '(planning, integration)';

const ROLES: readonly AgentRole[] = ['planner', 'actor', 'critic'];

export function usageTables(state: Pick<RunState, 'usage' | 'taskOrder' | 'tasks'>): UsageTables {
  const { usage } = state;
  const byRole = ROLES.filter((role) => usage.byRole[role]).map((role) => ({ key: role, label: role, usage: usage.byRole[role]! }));

  const byAgent = Object.entries(usage.byAgent ?? {}).map(([agent, u]) => ({ key: `agent:${agent}`, label: agent, usage: u }));

  const byTask: UsageRow[] = [];
  const listed = new Set<string>();
  const addTask = (id: string) => {
    if (listed.has(id)) return;
    listed.add(id);
    byTask.push({ key: `task:${id}`, label: id, taskId: id, usage: usage.byTask[id] ?? ZERO_USAGE });
  };
  state.taskOrder.forEach(addTask);
  Object.keys(usage.byTask).forEach(addTask);

  // Planner calls and calls made for the integration are counted in the total but not per task.
  const attributed = Object.values(usage.byTask).reduce(addUsage, ZERO_USAGE);
  const rest = subtract(usage.total, attributed);
  if (totalTokens(rest) > 0 || rest.costUsd > 0) byTask.push({ key: 'run', label: NO_TASK_LABEL, usage: rest });

  return { byRole, byAgent, byTask, total: usage.total, calls: usage.calls };
}

/**
 * The `limit` largest rows by dollars (by tokens when nothing has a price), largest first,
 * with the rest summed into one "N others" bar.
 */
export function topBars(rows: readonly UsageRow[], limit: number): { bars: ChartBar[]; unit: 'usd' | 'tokens' } {
  const unit = rows.some((r) => r.usage.costUsd > 0) ? 'usd' : 'tokens';
  const value = (u: TokenUsage) => (unit === 'usd' ? u.costUsd : totalTokens(u));
  const sorted = rows
    .map((r): ChartBar => ({ key: r.key, label: r.label, value: value(r.usage), ...(r.taskId ? { taskId: r.taskId } : {}) }))
    .filter((b) => b.value > 0)
    .sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
  if (sorted.length <= limit) return { bars: sorted, unit };
  const shown = sorted.slice(0, limit);
  const others = sorted.slice(limit);
  const sum = others.reduce((s, b) => s + b.value, 0);
  shown.push({ key: 'others', label: `${others.length} others`, value: unit === 'usd' ? Math.round(sum * 1e6) / 1e6 : sum });
  return { bars: shown, unit };
}

function subtract(a: TokenUsage, b: TokenUsage): TokenUsage {
  const clamp = (n: number) => Math.max(0, n);
  return {
    inputTokens: clamp(a.inputTokens - b.inputTokens),
    outputTokens: clamp(a.outputTokens - b.outputTokens),
    cacheReadTokens: clamp(a.cacheReadTokens - b.cacheReadTokens),
    cacheWriteTokens: clamp(a.cacheWriteTokens - b.cacheWriteTokens),
    costUsd: clamp(Math.round((a.costUsd - b.costUsd) * 1e6) / 1e6),
  };
}
