import fs from 'node:fs';
import * as z from 'zod';
import { emptyRunSummary, summariseEvent, type RunSummary } from '../domain/runSummary';
import { writeFileAtomic } from '../io/atomicWrite';
import { parseJsonAs } from '../io/parseJsonAs';
import { EventLog } from './eventLog';
import type { RunPaths } from './paths';

/**
 * Bumped when RunSummary holds something else or folds events another way: a summary of another
 * version is rebuilt from the log, never read as this one.
 */
export const RUN_SUMMARY_VERSION = 2;

/** How the summary given was had: as written, with the events written since folded in, or folded from the whole log. */
export type SummaryRefresh = 'kept' | 'extended' | 'rebuilt';

/**
 * summary.json: a run's summary (domain/runSummary.ts) and the log it covers, by its length and
 * modification time. Only a shape check on read: it is a cache Taskloom wrote, and one that does
 * not fit is folded again from the log, which is the record.
 */
const summaryFileSchema = z.object({
  version: z.literal(RUN_SUMMARY_VERSION),
  logBytes: z.number().int().nonnegative(),
  logMtimeMs: z.number(),
  // Checked by hand, not parsed into a copy: stats reads a thousand of these at a time.
  summary: z.custom<RunSummary>(looksLikeSummary),
});

function looksLikeSummary(value: unknown): boolean {
  const s = value as Partial<Record<keyof RunSummary, unknown>> | null;
  return (
    typeof s === 'object' && s !== null && typeof s.runId === 'string' && Number.isSafeInteger(s.lastSeq) &&
    [s.tasks, s.calls, s.reviews, s.sendBackCategories, s.gateCommands, s.failingTests, s.flakyTests, s.lastCritic].every((part) => typeof part === 'object' && part !== null)
  );
}

export interface FreshSummary {
  summary: RunSummary;
  refresh: SummaryRefresh;
  warnings: string[];
}

/**
 * The run's summary for its log as it is now: summary.json when the log has not changed since it
 * was written; else the events after it folded in (a log only grows), or, when the file is
 * missing, of another version or does not fit the log, the whole log folded. What was folded is
 * written back (atomically: a reader sees the old file or the new). Any process may refresh it,
 * a reader too: it holds nothing the log does not. A CorruptLogError of the log reaches the caller.
 */
export function freshRunSummary(paths: RunPaths, runId: string): FreshSummary {
  const log = fs.statSync(paths.events);
  const cached = readSummaryFile(paths.summary, runId);
  if (cached && cached.logBytes === log.size && cached.logMtimeMs === log.mtimeMs) return { summary: cached.summary, refresh: 'kept', warnings: [] };
  const warnings: string[] = [];
  let refresh: SummaryRefresh = 'extended';
  let summary = cached?.summary;
  let endOffset = 0;
  if (summary && cached) {
    const tail = EventLog.read(paths.events, { afterSeq: summary.lastSeq, fromOffset: cached.logBytes, onEvent: (e) => summariseEvent(summary!, e) });
    if (tail.mismatch === undefined) {
      warnings.push(...tail.warnings);
      endOffset = tail.endOffset;
    } else {
      summary = undefined;
    }
  }
  if (!summary) {
    refresh = 'rebuilt';
    const whole = emptyRunSummary(runId);
    const read = EventLog.read(paths.events, { onEvent: (e) => summariseEvent(whole, e) });
    warnings.push(...read.warnings);
    summary = whole;
    endOffset = read.endOffset;
  }
  try {
    const file = { version: RUN_SUMMARY_VERSION, logBytes: endOffset, logMtimeMs: log.mtimeMs, summary };
    // A cache: a crash that loses it costs one fold of the log, so it is not fsync'ed.
    writeFileAtomic(paths.summary, JSON.stringify(file), { survivesProcessOnly: true });
  } catch (error) {
    warnings.push(`Run ${runId}: could not keep its summary in ${paths.summary} (${(error as Error).message}); stats folds its log each time`);
  }
  return { summary, refresh, warnings };
}

/** The summary file as written for this run, or undefined when it is missing, of another version or not well formed. */
function readSummaryFile(file: string, runId: string): { logBytes: number; logMtimeMs: number; summary: RunSummary } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = parseJsonAs(summaryFileSchema, text);
  if (!parsed || parsed.summary.runId !== runId) return undefined;
  return { logBytes: parsed.logBytes, logMtimeMs: parsed.logMtimeMs, summary: parsed.summary };
}
