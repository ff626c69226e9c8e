import type { HumanAction } from '../domain/events';
import type { RunSummary, TestTally } from '../domain/runSummary';
import { dollarsPer, humanDecisionCounts, plannedTasks, ratio, sumValues, taskCounts, wholePer, type TaskCounts } from './statsFigures';
import { addUsage, totalTokens, ZERO_USAGE, type TokenUsage } from '../domain/usage';
import { groupStats, type GroupStats } from './statsGroups';

/**
 * What runs cost and what works, across the runs of a repository: the figures of `taskloom stats`
 * (docs/stats.md defines each one). Added up from the runs' summaries (domain/runSummary.ts), so
 * it is pure and the same for every front door. A rate over nothing is null, never 0.
 */
export interface RunStats {
  /** Bumped when a field changes meaning or goes; new fields may come without it. */
  statsVersion: typeof STATS_VERSION;
  runs: number;
  tasks: TaskCounts;
  /** Tasks whose first gate passed, of the tasks gated at least once. */
  firstPassGateRate: number | null;
  gatedTasks: number;
  /** Reviews that sent the work back (a blocking finding), of all the critic's reviews of tasks. */
  sendBackRate: number | null;
  reviews: number;
  /** The blocking findings behind those send-backs, by category. */
  sendBackCategories: Record<string, number>;
  humanDecisions: Record<HumanAction, number>;
  humanDecisionsPerMergedTask: number | null;
  /** Every agent call of the runs (planning and pull request fixes included), over the merged tasks. */
  costUsd: number;
  tokens: number;
  costUsdPerMergedTask: number | null;
  tokensPerMergedTask: number | null;
  /** Mean time from a merged task's first build to its merge (waits for you included). */
  wallMsPerMergedTask: number | null;
  byAgent: Record<string, GroupStats>;
  byModel: Record<string, GroupStats>;
  byRole: Record<string, GroupStats>;
  /** `ran`: times the command ran; `failures`: times it failed; `runIds`: the runs where it failed. */
  topFailingCommands: Array<{ command: string; ran: number; failures: number; runIds: string[] }>;
  topFailingTests: TestStats[];
  flakyTests: TestStats[];
  /** Each run's own figures, oldest first: for figures over time, and the way to the runs behind a figure. */
  perRun: RunRow[];
}

export const STATS_VERSION = 1;
/** How many failing commands and tests are listed. */
export const STATS_TOP = 10;

export interface TestStats {
  id: string;
  name: string;
  file?: string;
  /** Gate runs in which it failed (or was found flaky). */
  count: number;
  runIds: string[];
}

export interface RunRow {
  runId: string;
  startedAt: string;
  /** How it last stopped (completed, needs_human, paused, cancelled, failed); null while it never stopped, or went on since. */
  endStatus: string | null;
  tasks: TaskCounts;
  costUsd: number;
  costUsdPerMergedTask: number | null;
  firstPassGateRate: number | null;
  sendBackRate: number | null;
  humanDecisions: number;
}

export function buildRunStats(summaries: readonly RunSummary[]): RunStats {
  const runs = [...summaries].sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.runId < b.runId ? -1 : 1));
  const tasks = runs.flatMap((r) => plannedTasks(r));
  const counts = taskCounts(tasks);
  const usage = runs.reduce<TokenUsage>((sum, r) => Object.values(r.calls.byRole).reduce((u, c) => addUsage(u, c.usage), sum), { ...ZERO_USAGE });
  const merged = tasks.filter((t) => t.merged);
  const decisions = humanDecisionCounts(tasks);
  const reviews = tasks.reduce((n, t) => n + t.reviews, 0);
  const gated = tasks.filter((t) => t.firstGatePassed !== undefined);
  return {
    statsVersion: STATS_VERSION,
    runs: runs.length,
    tasks: counts,
    firstPassGateRate: ratio(gated.filter((t) => t.firstGatePassed).length, gated.length),
    gatedTasks: gated.length,
    sendBackRate: ratio(
      tasks.reduce((n, t) => n + t.sendBacks, 0),
      reviews,
    ),
    reviews,
    sendBackCategories: addCounts(runs.map((r) => r.sendBackCategories)),
    humanDecisions: decisions,
    humanDecisionsPerMergedTask: ratio(sumValues(decisions), merged.length),
    costUsd: usage.costUsd,
    tokens: totalTokens(usage),
    costUsdPerMergedTask: dollarsPer(usage.costUsd, merged.length),
    tokensPerMergedTask: wholePer(totalTokens(usage), merged.length),
    wallMsPerMergedTask: wholePer(
      merged.reduce((ms, t) => ms + (t.startedAt && t.mergedAt ? Date.parse(t.mergedAt) - Date.parse(t.startedAt) : 0), 0),
      merged.filter((t) => t.startedAt && t.mergedAt).length,
    ),
    byAgent: groupStats(runs, 'byAgent', (t) => t.actor?.agent),
    byModel: groupStats(runs, 'byModel', (t) => t.actor?.model),
    byRole: groupStats(runs, 'byRole', (t) => (t.actor ? 'actor' : undefined)),
    topFailingCommands: topFailingCommands(runs),
    topFailingTests: topTests(runs, (r) => r.failingTests),
    flakyTests: topTests(runs, (r) => r.flakyTests),
    perRun: runs.map(runRow),
  };
}

function addCounts(all: ReadonlyArray<Readonly<Record<string, number>>>): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const counts of all) for (const [key, n] of Object.entries(counts)) sum[key] = (sum[key] ?? 0) + n;
  return sum;
}

/** Most failures first, then by name, so the same runs always list the same way. */
const byCountThenName = <T>(count: (x: T) => number, name: (x: T) => string) => (a: T, b: T) => count(b) - count(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);

function topFailingCommands(runs: readonly RunSummary[]): RunStats['topFailingCommands'] {
  const all = new Map<string, RunStats['topFailingCommands'][number]>();
  for (const r of runs) {
    for (const [command, c] of Object.entries(r.gateCommands)) {
      const entry = all.get(command) ?? { command, ran: 0, failures: 0, runIds: [] };
      entry.ran += c.runs;
      entry.failures += c.failures;
      if (c.failures > 0) entry.runIds.push(r.runId);
      all.set(command, entry);
    }
  }
  return [...all.values()].filter((c) => c.failures > 0).sort(byCountThenName((c) => c.failures, (c) => c.command)).slice(0, STATS_TOP);
}

function topTests(runs: readonly RunSummary[], pick: (r: RunSummary) => Record<string, TestTally>): TestStats[] {
  const all = new Map<string, TestStats>();
  for (const r of runs) {
    for (const [id, t] of Object.entries(pick(r))) {
      const entry = all.get(id) ?? { id, name: t.name, ...(t.file ? { file: t.file } : {}), count: 0, runIds: [] };
      entry.count += t.count;
      entry.runIds.push(r.runId);
      all.set(id, entry);
    }
  }
  return [...all.values()].sort(byCountThenName((t) => t.count, (t) => t.id)).slice(0, STATS_TOP);
}

function runRow(r: RunSummary): RunRow {
  const tasks = plannedTasks(r);
  const counts = taskCounts(tasks);
  const costUsd = Object.values(r.calls.byRole).reduce((u, c) => addUsage(u, c.usage), { ...ZERO_USAGE }).costUsd;
  const gated = tasks.filter((t) => t.firstGatePassed !== undefined);
  const reviews = tasks.reduce((n, t) => n + t.reviews, 0);
  return {
    runId: r.runId,
    startedAt: r.startedAt,
    endStatus: r.endStatus ?? null,
    tasks: counts,
    costUsd,
    costUsdPerMergedTask: dollarsPer(costUsd, counts.merged),
    firstPassGateRate: ratio(gated.filter((t) => t.firstGatePassed).length, gated.length),
    sendBackRate: ratio(
      tasks.reduce((n, t) => n + t.sendBacks, 0),
      reviews,
    ),
    humanDecisions: sumValues(humanDecisionCounts(tasks)),
  };
}
