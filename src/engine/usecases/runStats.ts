import type { RunSummary } from '../domain/runSummary';
import { errorText, TaskloomError } from '../domain/taskloomError';
import { buildRunStats, type RunStats } from '../report/runStats';
import { runPaths, taskloomPaths } from '../store/paths';
import { runIdsOnDisk } from '../store/runIndex';
import { RunNotFoundError } from '../store/runStore';
import { freshRunSummary } from '../store/runSummaryFile';

export interface RunStatsParams {
  /** Only runs started at or after this date (YYYY-MM-DD, or an ISO time). */
  since?: string;
  /** Only these runs (by default every run recorded here). */
  runIds?: readonly string[];
}

export interface RunStatsResult {
  stats: RunStats;
  /** The `since` asked for, as the ISO time it was read as. */
  since: string | null;
  /** Runs left out (a log that does not load) and what reading the logs had to say. */
  warnings: string[];
}

/**
 * What the runs recorded in this repository cost and how they went (report/runStats.ts). Reads
 * each run's summary (store/runSummaryFile.ts), folding only what its log gained since, so stats
 * over a thousand runs reads no log that has not changed. Needs no lock: the summaries are caches
 * any process may refresh. A run whose log does not load is left out with a warning.
 */
export function runStats(repoRoot: string, params: RunStatsParams = {}): RunStatsResult {
  const since = params.since === undefined ? undefined : sinceTime(params.since);
  const runsDir = taskloomPaths(repoRoot).runsDir;
  const onDisk = runIdsOnDisk(runsDir);
  const wanted = params.runIds && params.runIds.length > 0 ? [...new Set(params.runIds)] : onDisk;
  const missing = wanted.find((id) => !onDisk.includes(id));
  if (missing !== undefined) throw new RunNotFoundError(missing);
  const warnings: string[] = [];
  const summaries: RunSummary[] = [];
  for (const runId of wanted) {
    try {
      const fresh = freshRunSummary(runPaths(runsDir, runId), runId);
      warnings.push(...fresh.warnings);
      // A log whose creation never got as far as its first event is no run.
      if (fresh.summary.lastSeq === 0) continue;
      if (since !== undefined && Date.parse(fresh.summary.startedAt) < since) continue;
      summaries.push(fresh.summary);
    } catch (error) {
      warnings.push(`Run ${runId} is left out of the stats: ${errorText(error as Error)}`);
    }
  }
  return { stats: buildRunStats(summaries), since: since === undefined ? null : new Date(since).toISOString(), warnings };
}

/** A date (midnight UTC) or an ISO time, as ms since the epoch; anything else is refused. */
function sinceTime(text: string): number {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new TaskloomError('bad_input', `"${text}" is not a date`, 'Give a date as YYYY-MM-DD (midnight UTC), or an ISO time such as 2026-12-01T09:00:00Z.');
  }
  return time;
}

