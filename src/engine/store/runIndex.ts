import fs from 'node:fs';
import { indexEntryOf } from '../domain/runIndex';
import { EventLog } from './eventLog';
import { isValidRunId, runPaths } from './paths';
import { loadRunState } from './runLoader';
import { emptyStateData, type RunIndexEntry, type StateData, type StateDb } from './stateDb';

// state.json is a cache of the logs. These two functions make it agree with them again:
// `rebuildIndex` from nothing, `reconcileIndex` for the runs where it fell behind (a crash
// between snapshots, a run created by a process that died before writing the index).

/** Run ids that have an event log under `runs/`. */
export function runIdsOnDisk(runsDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(runsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => isValidRunId(name) && fs.existsSync(runPaths(runsDir, name).events));
}

/** The whole index, with a fresh snapshot of every run, from the logs alone. */
export function rebuildIndex(runsDir: string): { data: StateData; warnings: string[] } {
  const data = emptyStateData();
  const warnings: string[] = [];
  for (const runId of runIdsOnDisk(runsDir)) {
    try {
      const file = runPaths(runsDir, runId).events;
      if (EventLog.lastSeq(file) === 0) continue;
      const { state, warnings: loadWarnings, logBytes } = loadRunState(file, runId);
      warnings.push(...loadWarnings);
      data.runs[runId] = { ...indexEntryOf(state), snapshot: { seq: state.lastSeq, logBytes, state } };
    } catch (error) {
      warnings.push(`Run ${runId} was left out of the index: ${(error as Error).message}`);
    }
  }
  data.lastRunId = newestRunId(Object.values(data.runs));
  return { data, warnings };
}

/**
 * Brings entries whose log moved on (or that are missing) up to date and drops entries whose
 * log is gone. Reads only the last line of each log unless the entry is stale; a stale one
 * is loaded from its snapshot and the log after it, and the state loaded is kept as its new
 * snapshot, so the load that usually follows (resume) finds it and does not read the log again.
 * Changes only `db` in memory (writing it is the caller's call). Returns whether the index changed.
 */
export function reconcileIndex(db: StateDb, runsDir: string, warnings: string[]): boolean {
  let changed = false;
  const onDisk = new Set(runIdsOnDisk(runsDir));
  for (const runId of onDisk) {
    const file = runPaths(runsDir, runId).events;
    const entry = db.run(runId);
    try {
      const lastSeq = EventLog.lastSeq(file);
      // An empty log is a run whose creation did not get as far as its first event.
      if (lastSeq === 0 || entry?.lastSeq === lastSeq) continue;
      const loaded = loadRunState(file, runId, db.takeSnapshot(runId));
      warnings.push(...loaded.warnings);
      db.putRun(indexEntryOf(loaded.state));
      db.keepSnapshot(runId, loaded.state, loaded.logBytes);
      changed = true;
    } catch (error) {
      warnings.push(`Run ${runId} could not be brought up to date in the index: ${(error as Error).message}`);
    }
  }
  for (const entry of db.runs()) {
    if (onDisk.has(entry.runId)) continue;
    db.removeRun(entry.runId);
    warnings.push(`Run ${entry.runId} has no event log any more (runs/${entry.runId}/events.jsonl); removed it from the index`);
    changed = true;
  }
  const lastRunId = db.lastRunId;
  if (lastRunId === undefined || !db.run(lastRunId)) {
    const newest = newestRunId(db.runs());
    if (newest !== undefined && newest !== lastRunId) {
      db.setLastRunId(newest);
      changed = true;
    }
  }
  return changed;
}

/** Newest first: by creation time, then by id so equal times still sort the same way. */
export function compareNewestFirst(a: RunIndexEntry, b: RunIndexEntry): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
}

function newestRunId(entries: RunIndexEntry[]): string | undefined {
  return [...entries].sort(compareNewestFirst)[0]?.runId;
}
