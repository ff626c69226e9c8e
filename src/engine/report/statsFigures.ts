import type { HumanAction } from '../domain/events';
import type { RunSummary, TaskSummary } from '../domain/runSummary';
import { WAITING_FOR_HUMAN_STATES } from '../domain/taskStates';

// The arithmetic every figure of `taskloom stats` shares (report/runStats.ts, statsGroups.ts).

/** Tasks of the runs' approved plans, and where they ended. */
export interface TaskCounts {
  planned: number;
  merged: number;
  skipped: number;
  needsYou: number;
}

/** `part / whole` to four places; null when `whole` is 0 (a rate over nothing is unknown, not 0). */
export const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 1e4) / 1e4);
/** Dollars over a count, to the micro-dollar; null over nothing. */
export const dollarsPer = (usd: number, count: number): number | null => (count === 0 ? null : Math.round((usd / count) * 1e6) / 1e6);
/** A whole number over a count, rounded; null over nothing. */
export const wholePer = (total: number, count: number): number | null => (count === 0 ? null : Math.round(total / count));

/** The tasks a run set out to do: those of its plan, once approved (a plan never approved ran nothing). */
export const plannedTasks = (r: RunSummary): TaskSummary[] => (r.planApproved ? Object.values(r.tasks) : []);

export function taskCounts(tasks: readonly TaskSummary[]): TaskCounts {
  return {
    planned: tasks.length,
    merged: tasks.filter((t) => t.merged).length,
    skipped: tasks.filter((t) => !t.merged && t.state === 'SKIPPED').length,
    needsYou: tasks.filter((t) => !t.merged && WAITING_FOR_HUMAN_STATES.includes(t.state)).length,
  };
}

export const sumValues = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0);

export function humanDecisionCounts(tasks: readonly TaskSummary[]): Record<HumanAction, number> {
  const counts: Record<HumanAction, number> = { retry: 0, accept: 0, skip: 0, resolve: 0, continue: 0 };
  for (const t of tasks) for (const [action, n] of Object.entries(t.humanDecisions) as Array<[HumanAction, number]>) counts[action] += n;
  return counts;
}
