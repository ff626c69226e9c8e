import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunEvent } from '../src/engine/domain/events';
import { applyEvent } from '../src/engine/domain/projection';
import type { RunState } from '../src/engine/domain/runState';
import { runPaths, taskloomPaths } from '../src/engine/store/paths';
import { indexEntryOf } from '../src/engine/domain/runIndex';
import { emptyStateData, STATE_SCHEMA_VERSION, StateDb, type StateData } from '../src/engine/store/stateDb';
import { EventStream, jsonlOf } from './events';

/** Events written in bulk before the measured appends start. */
export const BULK_EVENTS = 99_900;
/** Measured appends on top of the bulk: the log ends at BULK_EVENTS + this. */
export const MEASURED_APPENDS = 200;
/** How far behind the end of the log the "crash between snapshots" snapshot is. */
export const CRASH_SNAPSHOT_LAG = 250;

/** The 100k-event run shared by the append and the resume sections. */
export interface BigRun {
  runId: string;
  /** A git repository whose `.taskloom/runs/<runId>/events.jsonl` holds the log (the resume section opens it with the engine). */
  root: string;
  eventsFile: string;
  /** At BULK_EVENTS; the append section continues it. */
  stream: EventStream;
  /** The first BULK_EVENTS lines, to give another store the same history. */
  bulkText: string;
  /** State at seq BULK_EVENTS + MEASURED_APPENDS - CRASH_SNAPSHOT_LAG. */
  crashSnapshot: RunState;
  /** Bytes of the log up to the end of `crashSnapshot`'s last event (its snapshot's `logBytes`). */
  crashLogBytes: number;
  /** An independent copy of `stream` at BULK_EVENTS, for a second store with the same history. */
  streamAtBulk: EventStream;
}

export function buildBigRun(root: string, runId: string): BigRun {
  const stream = new EventStream(runId);
  const crashSeq = BULK_EVENTS + MEASURED_APPENDS - CRASH_SNAPSHOT_LAG;
  const head = jsonlOf(stream, crashSeq);
  const crashSnapshot = structuredClone(stream.state!);
  const crashLogBytes = Buffer.byteLength(head);
  const bulkText = head + jsonlOf(stream, BULK_EVENTS - crashSeq);
  const eventsFile = runPaths(taskloomPaths(root).runsDir, runId).events;
  fs.mkdirSync(path.dirname(eventsFile), { recursive: true });
  fs.writeFileSync(eventsFile, bulkText);
  return { runId, root, eventsFile, stream, bulkText, crashSnapshot, crashLogBytes, streamAtBulk: stream.fork() };
}

/**
 * state.json as RunStore writes it (through StateDb): the run's index entry, with a snapshot
 * of `snapshot` when given, which ends at byte `logBytes` of the log.
 */
export function stateJsonText(index: RunState, snapshot?: RunState, logBytes?: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-bench-state-'));
  try {
    const file = path.join(dir, 'state.json');
    const { db } = StateDb.open(file, emptyStateData);
    db.putRun(indexEntryOf(index));
    db.setLastRunId(index.runId);
    // The state is only read (serialised) by the write.
    if (snapshot) db.keepSnapshot(index.runId, snapshot, logBytes);
    db.write();
    return fs.readFileSync(file, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** state.json as Taskloom wrote it before snapshots recorded their `logBytes` (plain UTF-8 JSON). */
export function legacyStateJsonText(index: RunState, snapshot: RunState): string {
  const data: StateData = {
    schemaVersion: STATE_SCHEMA_VERSION,
    lastRunId: index.runId,
    runs: { [index.runId]: { ...indexEntryOf(index), snapshot: { seq: snapshot.lastSeq, state: snapshot } } },
  };
  return JSON.stringify(data);
}

/**
 * The run's state at the last event that leaves at least `tailBytes` of the log after it, with
 * the bytes up to that event: a snapshot taken just before the next one would have been due.
 */
export function stateBeforeTail(eventsFile: string, tailBytes: number): { state: RunState; logBytes: number } {
  const bytes = fs.readFileSync(eventsFile);
  const limit = bytes.length - tailBytes;
  let state: RunState | undefined;
  let logBytes = 0;
  for (let start = 0; ; ) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0 || end + 1 > limit) break;
    state = applyEvent(state, JSON.parse(bytes.toString('utf8', start, end)) as RunEvent);
    logBytes = end + 1;
    start = end + 1;
  }
  if (!state) throw new Error(`no event ends ${tailBytes} bytes before the end of ${eventsFile}`);
  return { state, logBytes };
}
