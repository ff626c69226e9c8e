import fs from 'node:fs';
import path from 'node:path';
import { LowSync } from 'lowdb';
import { DataFileSync } from 'lowdb/node';
import { z } from 'zod';
import { RUN_STATUSES, type RunState, type RunStatus } from '../domain/runState';

/** What `runs` and resume need to know about a run without reading its log. */
export interface RunIndexEntry {
  runId: string;
  goal: string;
  createdAt: string;
  updatedAt: string;
  status: RunStatus;
  lastSeq: number;
}

/** A copy of a run's state as of `seq`; loading replays only the events after it. */
export interface RunSnapshot {
  seq: number;
  state: RunState;
}

export interface StoredRun extends RunIndexEntry {
  snapshot?: RunSnapshot;
}

export const STATE_SCHEMA_VERSION = 1;

export interface StateData {
  schemaVersion: typeof STATE_SCHEMA_VERSION;
  lastRunId?: string;
  runs: Record<string, StoredRun>;
}

export const emptyStateData = (): StateData => ({ schemaVersion: STATE_SCHEMA_VERSION, runs: {} });



// The snapshot's state is only checked loosely here: a bad snapshot costs a replay of one
// run's log (see runLoader), not a rebuild of the whole index.
const storedRunSchema = z.object({
  runId: z.string().min(1),
  goal: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  status: z.enum(RUN_STATUSES),
  lastSeq: z.number().int().nonnegative(),
  snapshot: z.object({ seq: z.number().int().positive(), state: z.looseObject({}) }).optional(),
});

const stateDataSchema = z.object({
  schemaVersion: z.number(),
  lastRunId: z.string().optional(),
  runs: z.record(z.string(), storedRunSchema),
});

/**
 * `.taskloom/state.json`, a lowdb database: the index of runs and the latest snapshot of
 * each. Written atomically (temp file + rename) but not fsync'ed, which is fine: the event
 * logs are the durable record, and this file is rebuilt from them when it is lost or damaged.
 * Synchronous on purpose: the store's writes are ordered with its appends and can run
 * from a process 'exit' handler.
 */
export class StateDb {
  private constructor(
    private readonly low: LowSync<StateData>,
    readonly file: string,
    readonly readOnly: boolean,
  ) {}

  /**
   * A missing file starts empty. Invalid JSON, another schemaVersion or a wrong shape moves
   * the file aside as `state.json.corrupt-<timestamp>` (left alone when read-only) and
   * starts from `rebuild()`.
   */
  static open(file: string, rebuild: () => StateData, options: { readOnly?: boolean } = {}): { db: StateDb; warnings: string[] } {
    const readOnly = options.readOnly ?? false;
    const adapter = new DataFileSync<StateData>(file, { parse: JSON.parse, stringify: (data) => JSON.stringify(data) });
    const low = new LowSync<StateData>(adapter, emptyStateData());
    const db = new StateDb(low, file, readOnly);
    if (!fs.existsSync(file)) return { db, warnings: [] };

    let problem: string | undefined;
    let raw: unknown;
    try {
      raw = adapter.read();
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      problem = `not valid JSON (${error.message})`;
    }
    problem ??= shapeProblem(raw);
    if (problem === undefined) {
      low.data = raw as StateData;
      return { db, warnings: [] };
    }

    const name = path.basename(file);
    let warning: string;
    if (readOnly) {
      warning = `${name} is ${problem}; the index was rebuilt from the event logs in memory (read-only, the file was left as it is)`;
    } else {
      const backup = backupName(file);
      fs.renameSync(file, backup);
      warning = `${name} was ${problem}; it was moved to ${path.basename(backup)} and the index was rebuilt from the event logs`;
    }
    low.data = rebuild();
    if (!readOnly) db.write();
    return { db, warnings: [warning] };
  }

  get lastRunId(): string | undefined {
    return this.low.data.lastRunId;
  }

  setLastRunId(runId: string): void {
    this.low.data.lastRunId = runId;
  }

  run(runId: string): StoredRun | undefined {
    return Object.hasOwn(this.low.data.runs, runId) ? this.low.data.runs[runId] : undefined;
  }

  runs(): StoredRun[] {
    return Object.values(this.low.data.runs);
  }

  /** Inserts or updates a run's index fields; its snapshot is kept. */
  putRun(entry: RunIndexEntry): void {
    const current = this.run(entry.runId);
    this.low.data.runs[entry.runId] = { ...entry, ...(current?.snapshot ? { snapshot: current.snapshot } : {}) };
  }

  /** Stores a copy: the caller keeps mutating its live state after this. */
  setSnapshot(runId: string, state: RunState): void {
    const entry = this.run(runId);
    if (!entry) throw new Error(`No index entry for run ${runId}`);
    entry.snapshot = { seq: state.lastSeq, state: structuredClone(state) };
  }

  dropSnapshot(runId: string): void {
    const entry = this.run(runId);
    if (entry) delete entry.snapshot;
  }

  removeRun(runId: string): void {
    delete this.low.data.runs[runId];
    if (this.low.data.lastRunId === runId) delete this.low.data.lastRunId;
  }

  write(): void {
    if (this.readOnly) throw new Error(`${this.file} is open read-only`);
    this.low.write();
  }
}

function shapeProblem(raw: unknown): string | undefined {
  if (typeof raw === 'object' && raw !== null && 'schemaVersion' in raw && raw.schemaVersion !== STATE_SCHEMA_VERSION) {
    return `written with schemaVersion ${JSON.stringify(raw.schemaVersion)}, not ${STATE_SCHEMA_VERSION}`;
  }
  const parsed = stateDataSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `not a Taskloom state file (${issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : 'wrong shape'})`;
  }
  const misfiled = Object.entries(parsed.data.runs).find(([key, run]) => key !== run.runId);
  if (misfiled) return `not consistent (the entry under "${misfiled[0]}" is for run "${misfiled[1].runId}")`;
  return undefined;
}

function backupName(file: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let candidate = `${file}.corrupt-${stamp}`;
  for (let n = 2; fs.existsSync(candidate); n += 1) candidate = `${file}.corrupt-${stamp}-${n}`;
  return candidate;
}
