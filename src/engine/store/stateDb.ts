import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { LowSync, type SyncAdapter } from 'lowdb';
import * as z from 'zod';
import { RUN_STATUSES, type RunState } from '../domain/runState';
import type { RunIndexEntry } from '../domain/runIndex';
import { writeFileAtomic } from '../io/atomicWrite';

export type { RunIndexEntry };

/**
 * A run's state as of `seq`; loading replays only the events after it. `logBytes` is where
 * that seq ends in the log, so the replay reads only the bytes after it (a state.json written
 * before it was recorded lacks it, and the log is then scanned for the seq).
 */
export interface RunSnapshot {
  seq: number;
  logBytes?: number;
  state: RunState;
}

/** What the index knows of a snapshot without handing out its state. */
export type SnapshotInfo = Omit<RunSnapshot, 'state'>;

/** A run as state.json stores it. */
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
  snapshot: z
    .object({ seq: z.number().int().positive(), logBytes: z.number().int().nonnegative().optional(), state: z.looseObject({}) })
    .optional(),
});

const stateDataSchema = z.object({
  schemaVersion: z.number(),
  lastRunId: z.string().optional(),
  runs: z.record(z.string(), storedRunSchema),
});

/** A run's snapshot in memory: the state itself, its JSON, or both. */
interface Slot {
  seq: number;
  logBytes?: number;
  /** Parsed from state.json or rebuilt from the log, owned here until `takeSnapshot` hands it out. */
  state?: RunState;
  /** The state as JSON, taken by `setSnapshot` or made by the last write: what a write puts in the file. */
  json?: string;
  /** state.json holds this snapshot (it was read from there or written there since). */
  written: boolean;
}

/**
 * `.taskloom/state.json`, a lowdb database: the index of runs and the latest snapshot of
 * each, read and written through lowdb's adapter with the store's one atomic write (fsync'ed
 * temp file, rename, fsync'ed directory). The event logs stay the durable record: this file is
 * rebuilt from them when it is lost or damaged.
 * Synchronous on purpose: the store's writes are ordered with its appends and can run
 * from a process 'exit' handler.
 *
 * Snapshots are large (the state of a 100,000-event run is ~22 MiB of JSON), so they are
 * never deep-copied: one read from the file is handed to its loader (`takeSnapshot`), one
 * taken from a live state is serialised at once (`setSnapshot`), and a write reuses the JSON
 * of every snapshot that did not change instead of serialising it again.
 */
export class StateDb {
  private readonly slots = new Map<string, Slot>();
  /** Length of state.json as last read or written: the store spaces snapshots by it. */
  private length = 0;
  /** Runs whose snapshot the text being written holds. */
  private readonly serialized = new Set<string>();

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
    // Reads parse the whole file (snapshots included); a write is handed lowdb's data, the index,
    // and puts each run's snapshot in beside its entry from the db's slots.
    const adapter: SyncAdapter<StateData> = {
      read: () => {
        const text = readStateText(file);
        if (text === null) return null;
        db.length = text.length;
        const value: unknown = JSON.parse(text);
        // lowdb keeps its default data when read() hands it nothing truthy: a file holding
        // `null` or `0` must not pass for an empty database.
        if (typeof value !== 'object' || value === null) throw new NotAnObject(value);
        return value as StateData;
      },
      write: (data) => writeFileAtomic(file, db.serialize(data)),
    };
    const low = new LowSync<StateData>(adapter, emptyStateData());
    const db = new StateDb(low, file, readOnly);
    if (!fs.existsSync(file)) return { db, warnings: [] };

    let problem: string | undefined;
    try {
      low.read();
    } catch (error) {
      if (error instanceof NotAnObject) problem = `not a Taskloom state file (top level: ${JSON.stringify(error.value)}, not an object)`;
      else if (error instanceof SyntaxError) problem = `not valid JSON (${error.message})`;
      else throw error;
    }
    problem ??= shapeProblem(low.data);
    if (problem === undefined) {
      db.load(low.data);
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
    db.load(rebuild());
    if (!readOnly) db.write();
    return { db, warnings: [warning] };
  }

  get lastRunId(): string | undefined {
    return this.low.data.lastRunId;
  }

  setLastRunId(runId: string): void {
    this.low.data.lastRunId = runId;
  }

  run(runId: string): RunIndexEntry | undefined {
    return Object.hasOwn(this.low.data.runs, runId) ? this.low.data.runs[runId] : undefined;
  }

  runs(): RunIndexEntry[] {
    return Object.values(this.low.data.runs);
  }

  /** Inserts or updates a run's index fields; its snapshot is kept. */
  putRun(entry: RunIndexEntry): void {
    const { runId, goal, createdAt, updatedAt, status, lastSeq } = entry;
    this.low.data.runs[runId] = { runId, goal, createdAt, updatedAt, status, lastSeq };
  }

  /** Seq and log offset of a run's latest snapshot (also after its state was handed out), if it has one. */
  snapshot(runId: string): SnapshotInfo | undefined {
    const slot = this.slots.get(runId);
    if (!slot) return undefined;
    return slot.logBytes === undefined ? { seq: slot.seq } : { seq: slot.seq, logBytes: slot.logBytes };
  }

  /**
   * Hands a run's snapshot to a loader, which owns the state from then on and may replay
   * events onto it in place: no copy is made. The snapshot stays in the file through its
   * JSON when it has some; otherwise it is written again only once `setSnapshot` or
   * `keepSnapshot` replaces it (until then a write leaves it out, which costs the next
   * load a full replay, never a wrong state).
   */
  takeSnapshot(runId: string): RunSnapshot | undefined {
    const slot = this.slots.get(runId);
    if (!slot) return undefined;
    let state = slot.state;
    if (state === undefined) {
      if (slot.json === undefined) return undefined;
      state = JSON.parse(slot.json) as RunState;
    }
    slot.state = undefined;
    return slot.logBytes === undefined ? { seq: slot.seq, state } : { seq: slot.seq, logBytes: slot.logBytes, state };
  }

  /** Snapshots a state the caller keeps mutating: serialised now, at its `lastSeq`, which ends at `logBytes` in the log. */
  setSnapshot(runId: string, state: RunState, logBytes: number | undefined): void {
    this.assertRun(runId);
    this.slots.set(runId, { seq: state.lastSeq, ...(logBytes === undefined ? {} : { logBytes }), json: asciiJson(state), written: false });
  }

  /** Takes over a state nobody else holds (a run rebuilt from its log) as the run's snapshot; serialised when written. */
  keepSnapshot(runId: string, state: RunState, logBytes: number | undefined): void {
    this.assertRun(runId);
    this.slots.set(runId, { seq: state.lastSeq, ...(logBytes === undefined ? {} : { logBytes }), state, written: false });
  }

  /** Whether state.json already holds a snapshot of the run at `seq` (nothing to write for it). */
  fileHasSnapshotAt(runId: string, seq: number): boolean {
    const slot = this.slots.get(runId);
    return slot !== undefined && slot.written && slot.seq === seq;
  }

  /** Whether the next write can put a snapshot of the run at `seq` in the file without a `setSnapshot` first. */
  canWriteSnapshotAt(runId: string, seq: number): boolean {
    const slot = this.slots.get(runId);
    return slot !== undefined && slot.seq === seq && (slot.json !== undefined || slot.state !== undefined);
  }

  dropSnapshot(runId: string): void {
    this.slots.delete(runId);
  }

  removeRun(runId: string): void {
    delete this.low.data.runs[runId];
    this.slots.delete(runId);
    if (this.low.data.lastRunId === runId) delete this.low.data.lastRunId;
  }

  /** Characters in state.json as last read or written. */
  get fileLength(): number {
    return this.length;
  }

  write(): void {
    if (this.readOnly) throw new Error(`${this.file} is open read-only`);
    this.low.write();
    for (const [runId, slot] of this.slots) slot.written = this.serialized.has(runId);
  }

  /** Index entries from `data`, their snapshots into slots (the objects are owned from here on). */
  private load(data: StateData): void {
    const runs: Record<string, StoredRun> = {};
    for (const [runId, stored] of Object.entries(data.runs)) {
      const { snapshot, ...entry } = stored;
      runs[runId] = entry;
      if (snapshot) {
        this.slots.set(runId, {
          seq: snapshot.seq,
          ...(snapshot.logBytes === undefined ? {} : { logBytes: snapshot.logBytes }),
          state: snapshot.state,
          written: true,
        });
      }
    }
    this.low.data = { ...data, schemaVersion: STATE_SCHEMA_VERSION, runs };
  }

  /**
   * The file's text, built from parts: each snapshot's state goes in as the JSON it already
   * has (made here, once, for one that has none).
   */
  private serialize(data: StateData): string {
    const { runs, ...head } = data;
    this.serialized.clear();
    const parts: string[] = [];
    for (const [runId, entry] of Object.entries(runs)) {
      const slot = this.slots.get(runId);
      if (slot && slot.json === undefined && slot.state !== undefined) slot.json = asciiJson(slot.state);
      let text = asciiJson(entry);
      if (slot?.json !== undefined) {
        this.serialized.add(runId);
        const info = asciiJson(slot.logBytes === undefined ? { seq: slot.seq } : { seq: slot.seq, logBytes: slot.logBytes });
        text = `${text.slice(0, -1)},"snapshot":${info.slice(0, -1)},"state":${slot.json}}}`;
      }
      parts.push(`${asciiJson(runId)}:${text}`);
    }
    const text = `${asciiJson(head).slice(0, -1)},"runs":{${parts.join(',')}}}`;
    this.length = text.length;
    return text;
  }

  private assertRun(runId: string): void {
    if (!this.run(runId)) throw new Error(`No index entry for run ${runId}`);
  }
}

/**
 * JSON with every character outside ASCII escaped (`\u00e9`): state.json is then pure ASCII,
 * which decodes into a compact one-byte string and parses markedly faster than UTF-8 text
 * with a few accents or symbols in it (test output is full of them).
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const NON_ASCII = /[\u0080-\uffff]/g;

/** The text of state.json, or null when there is none; ASCII (as written here) is decoded the fast way. */
function readStateText(file: string): string | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

class NotAnObject {
  constructor(readonly value: unknown) {}
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
