import fs from 'node:fs';
import path from 'node:path';
import type { RunState } from '../src/engine/domain/runState';
import { runPaths, taskloomPaths } from '../src/engine/store/paths';
import { indexEntryOf } from '../src/engine/store/runIndex';
import { STATE_SCHEMA_VERSION, type StateData } from '../src/engine/store/stateDb';
import { EventStream, jsonlOf } from './events';

/** Events written in bulk before the measured appends start. */
export const BULK_EVENTS = 99_900;
/** Measured appends on top of the bulk: the log ends at BULK_EVENTS + this. */
export const MEASURED_APPENDS = 200;
/** How far behind the end of the log the "crash between snapshots" snapshot is (SNAPSHOT_EVERY / 2). */
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
  /** An independent copy of `stream` at BULK_EVENTS, for a second store with the same history. */
  streamAtBulk: EventStream;
}

export function buildBigRun(root: string, runId: string): BigRun {
  const stream = new EventStream(runId);
  const crashSeq = BULK_EVENTS + MEASURED_APPENDS - CRASH_SNAPSHOT_LAG;
  const head = jsonlOf(stream, crashSeq);
  const crashSnapshot = structuredClone(stream.state!);
  const bulkText = head + jsonlOf(stream, BULK_EVENTS - crashSeq);
  const eventsFile = runPaths(taskloomPaths(root).runsDir, runId).events;
  fs.mkdirSync(path.dirname(eventsFile), { recursive: true });
  fs.writeFileSync(eventsFile, bulkText);
  return { runId, root, eventsFile, stream, bulkText, crashSnapshot, streamAtBulk: stream.fork() };
}

/** state.json as RunStore writes it: the run's index entry, with a snapshot of `snapshot` when given. */
export function stateJsonText(index: RunState, snapshot?: RunState): string {
  const data: StateData = {
    schemaVersion: STATE_SCHEMA_VERSION,
    lastRunId: index.runId,
    runs: {
      [index.runId]: { ...indexEntryOf(index), ...(snapshot ? { snapshot: { seq: snapshot.lastSeq, state: snapshot } } : {}) },
    },
  };
  return JSON.stringify(data);
}
