import fs from 'node:fs';
import type { RunEvent, RunEventBody } from '../domain/events';
import { applyEvent } from '../domain/projection';
import type { RunState } from '../domain/runState';
import { writeDerivedFiles } from './derivedFiles';
import { EventLog, type ReadOptions, type ReadResult } from './eventLog';
import { WorkspaceLock } from './lock';
import { runPaths, taskloomPaths, type RunPaths, type TaskloomPaths } from './paths';
import { compareNewestFirst, indexEntryOf, rebuildIndex, reconcileIndex } from './runIndex';
import { loadRunState } from './runLoader';
import { StateDb, type RunIndexEntry } from './stateDb';

export type RunCreatedBody = Extract<RunEventBody, { type: 'run_created' }>;

export interface RunStoreOptions {
  /** Shown to a second process that finds the workspace locked, e.g. "taskloom run". */
  command: string;
  /** No lock, no writes at all (not even repairs): for `runs`, `trace` and viewing a run another process drives. */
  readOnly?: boolean;
  /** Problems met in the background (a derived file or state.json that could not be written). Default: stderr. */
  onWarning?: (message: string) => void;
}

export class RunNotFoundError extends Error {
  constructor(readonly runId: string) {
    super(`No run "${runId}" in this workspace`);
    this.name = 'RunNotFoundError';
  }
}

/** Events between two snapshots in state.json; loading replays at most this many. */
export const SNAPSHOT_EVERY = 500;
/** run.json and DECISIONS.md are rewritten at most this often while a run is busy. */
export const DERIVED_FILES_INTERVAL_MS = 300;

interface DerivedFilesState {
  lastWrite: number;
  timer?: NodeJS.Timeout;
  pending: boolean;
}

/**
 * The one writer of a workspace's `.taskloom/`. It owns the live RunState of each run it
 * writes to: `append` builds the event (seq, runId, at), applies it to that state with the
 * projection, then makes it durable in the run's log, and only then returns. The projection
 * runs first so an event it rejects (a bug) never reaches the log, where it would break
 * every later replay; if either step throws, the live state is dropped and reloaded from
 * the log on next use, so callers must fetch `state(runId)` again after a failed append.
 *
 * Everything else is derived and may lag the log: state.json (index + snapshot every
 * SNAPSHOT_EVERY events and at pause/finish), run.json and DECISIONS.md (throttled).
 */
export class RunStore {
  private readonly states = new Map<string, RunState>();
  private readonly logs = new Map<string, EventLog>();
  private readonly derived = new Map<string, DerivedFilesState>();
  private dbDirty = false;
  private closed = false;
  private readonly onExit = (): void => {
    try {
      this.flush();
    } catch {
      // Best effort while the process ends: every event is already in the logs.
    }
  };

  private constructor(
    readonly repoRoot: string,
    readonly paths: TaskloomPaths,
    private readonly db: StateDb,
    private readonly lock: WorkspaceLock | undefined,
    readonly readOnly: boolean,
    private readonly onWarning: (message: string) => void,
  ) {
    // Prepended so the derived files are written before the lock's own exit handler releases it.
    if (!readOnly) process.prependListener('exit', this.onExit);
  }

  /**
   * Opens `<repoRoot>/.taskloom/`: takes the workspace lock (LockHeldError when another live
   * process has it), opens state.json (rebuilt from the logs when missing or damaged) and
   * brings the index up to date with the logs. Read-only opens create and repair nothing.
   */
  static open(repoRoot: string, options: RunStoreOptions): { store: RunStore; warnings: string[] } {
    const paths = taskloomPaths(repoRoot);
    const readOnly = options.readOnly ?? false;
    const onWarning = options.onWarning ?? ((message: string) => console.error(`taskloom: ${message}`));
    const warnings: string[] = [];
    let lock: WorkspaceLock | undefined;
    if (!readOnly) {
      fs.mkdirSync(paths.runsDir, { recursive: true });
      lock = WorkspaceLock.acquire(paths.dir, { command: options.command });
      warnings.push(...lock.warnings);
    }
    try {
      const rebuildWarnings: string[] = [];
      const opened = StateDb.open(
        paths.stateDb,
        () => {
          const rebuilt = rebuildIndex(paths.runsDir);
          rebuildWarnings.push(...rebuilt.warnings);
          return rebuilt.data;
        },
        { readOnly },
      );
      warnings.push(...opened.warnings, ...rebuildWarnings);
      const store = new RunStore(repoRoot, paths, opened.db, lock, readOnly, onWarning);
      if (reconcileIndex(opened.db, paths.runsDir, warnings) && !readOnly) opened.db.write();
      return { store, warnings };
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  /** Starts a run: its log gets `run_created` as seq 1. */
  createRun(runId: string, body: RunCreatedBody): RunEvent {
    this.assertWritable();
    const paths = this.runPaths(runId);
    if (this.db.run(runId) || this.states.has(runId) || EventLog.lastSeq(paths.events) > 0) {
      throw new Error(`Run ${runId} already exists`);
    }
    const log = this.openLog(runId, paths);
    const event = makeEvent(1, runId, body);
    const state = applyEvent(undefined, event);
    log.append(event);
    this.states.set(runId, state);
    this.db.putRun(indexEntryOf(state));
    this.db.setLastRunId(runId);
    this.db.setSnapshot(runId, state);
    this.writeDb();
    this.writeDerivedNow(runId);
    return event;
  }

  /** Appends an event to a run (loading it first if needed) and returns it once it is durable. */
  append(runId: string, body: RunEventBody): RunEvent {
    this.assertWritable();
    if (body.type === 'run_created') throw new Error('run_created starts a run: use createRun');
    const state = this.state(runId);
    const log = this.openLog(runId, this.runPaths(runId));
    const event = makeEvent(state.lastSeq + 1, runId, body);
    try {
      applyEvent(state, event);
      log.append(event);
    } catch (error) {
      this.states.delete(runId);
      throw error;
    }
    this.db.putRun(indexEntryOf(state));
    this.dbDirty = true;
    const stops = event.type === 'run_finished' || event.type === 'run_paused';
    const snapshotSeq = this.db.run(runId)?.snapshot?.seq ?? 0;
    if (stops || state.lastSeq - snapshotSeq >= SNAPSHOT_EVERY) {
      this.db.setSnapshot(runId, state);
      this.writeDb();
    }
    if (stops) this.writeDerivedNow(runId);
    else this.scheduleDerived(runId);
    return event;
  }

  /**
   * A run's state: snapshot plus the events after it (the whole log when the snapshot does
   * not fit). A writable store returns the live state when it has one, else repairs a torn
   * last line, keeps the loaded state live and refreshes the derived files. A read-only store
   * reads the disk every time, since another process may be writing the run.
   * Do not mutate the returned state; use `project` to look ahead.
   */
  loadRun(runId: string): { state: RunState; warnings: string[] } {
    this.assertOpen();
    const live = this.states.get(runId);
    if (live && !this.readOnly) return { state: live, warnings: [] };
    const paths = this.runPaths(runId);
    if (!fs.existsSync(paths.events)) throw new RunNotFoundError(runId);
    const warnings: string[] = [];
    // Repair first, so the torn line is reported once, as cut off rather than as ignored.
    if (!this.readOnly) warnings.push(...this.openLogReporting(runId, paths));
    const snapshot = this.db.run(runId)?.snapshot;
    const loaded = loadRunState(paths.events, runId, snapshot);
    warnings.push(...loaded.warnings);
    const state = loaded.state;
    this.states.set(runId, state);
    if (this.readOnly) return { state, warnings };

    this.db.putRun(indexEntryOf(state));
    if (snapshot?.seq !== state.lastSeq || !loaded.fromSnapshot) this.db.setSnapshot(runId, state);
    this.writeDb();
    this.writeDerivedNow(runId);
    return { state, warnings };
  }

  /**
   * The live state of a run, loaded on first use (its warnings go to `onWarning`). After an
   * append that threw, this reloads from the log, so fetch it again rather than keep it.
   */
  state(runId: string): RunState {
    this.assertOpen();
    return this.states.get(runId) ?? this.loadAndReport(runId);
  }

  /** The events of a run, e.g. for `trace`; `afterSeq` for a tail. */
  events(runId: string, options: ReadOptions = {}): ReadResult {
    const paths = this.runPaths(runId);
    if (!fs.existsSync(paths.events)) throw new RunNotFoundError(runId);
    return EventLog.read(paths.events, options);
  }

  /** Index entries, newest first. */
  listRuns(): RunIndexEntry[] {
    return this.db
      .runs()
      .map(({ snapshot: _snapshot, ...entry }) => entry)
      .sort(compareNewestFirst);
  }

  lastRunId(): string | undefined {
    return this.db.lastRunId;
  }

  /** The newest run that is not completed or cancelled: what "Resume last run" offers. */
  latestUnfinishedRunId(): string | undefined {
    return this.listRuns().find((run) => run.status !== 'completed' && run.status !== 'cancelled')?.runId;
  }

  runPaths(runId: string): RunPaths {
    return runPaths(this.paths.runsDir, runId);
  }

  /**
   * Writes the snapshot(s) to state.json and the derived files now: of `runId`, or of every
   * live run. Write failures go to `onWarning` rather than throw: every event is already
   * durable in its log, and nothing derived from it should fail a run.
   */
  flush(runId?: string): void {
    if (this.readOnly || this.closed) return;
    for (const [id, state] of this.states) {
      if (runId !== undefined && id !== runId) continue;
      if (this.db.run(id)?.snapshot?.seq !== state.lastSeq) {
        this.db.setSnapshot(id, state);
        this.dbDirty = true;
      }
    }
    if (this.dbDirty) this.writeDb();
    for (const [id, derived] of this.derived) {
      if (derived.pending && (runId === undefined || id === runId)) this.writeDerivedNow(id);
    }
  }

  /** Flushes, closes the logs and releases the lock. The store cannot be used afterwards. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      process.off('exit', this.onExit);
      for (const derived of this.derived.values()) clearTimeout(derived.timer);
      for (const log of this.logs.values()) log.close();
      this.logs.clear();
      this.states.clear();
      this.lock?.release();
    }
  }

  private loadAndReport(runId: string): RunState {
    const { state, warnings } = this.loadRun(runId);
    for (const warning of warnings) this.onWarning(warning);
    return state;
  }

  private openLog(runId: string, paths: RunPaths): EventLog {
    const open = this.logs.get(runId);
    if (open) return open;
    for (const warning of this.openLogReporting(runId, paths)) this.onWarning(warning);
    return this.logs.get(runId)!;
  }

  private openLogReporting(runId: string, paths: RunPaths): string[] {
    if (this.logs.has(runId)) return [];
    const { log, warnings } = EventLog.open(paths.events);
    this.logs.set(runId, log);
    return warnings;
  }

  private scheduleDerived(runId: string): void {
    const derived = this.derivedState(runId);
    derived.pending = true;
    if (derived.timer) return;
    const wait = derived.lastWrite + DERIVED_FILES_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.writeDerivedNow(runId);
      return;
    }
    // Unref'd: a pending rewrite of derived files must not keep a finished process alive.
    derived.timer = setTimeout(() => {
      derived.timer = undefined;
      if (!this.closed) this.writeDerivedNow(runId);
    }, wait);
    derived.timer.unref();
  }

  private writeDerivedNow(runId: string): void {
    const derived = this.derivedState(runId);
    clearTimeout(derived.timer);
    derived.timer = undefined;
    const state = this.states.get(runId);
    if (this.readOnly || !state) return;
    try {
      writeDerivedFiles(this.runPaths(runId), state);
      derived.pending = false;
    } catch (error) {
      this.onWarning(`Run ${runId}: could not write run.json / DECISIONS.md: ${(error as Error).message}`);
    } finally {
      derived.lastWrite = Date.now();
    }
  }

  private derivedState(runId: string): DerivedFilesState {
    let derived = this.derived.get(runId);
    if (!derived) {
      derived = { lastWrite: 0, pending: false };
      this.derived.set(runId, derived);
    }
    return derived;
  }

  /** state.json lags harmlessly when it cannot be written: the event is already durable in the log. */
  private writeDb(): void {
    try {
      this.db.write();
      this.dbDirty = false;
    } catch (error) {
      this.dbDirty = true;
      this.onWarning(`Could not write ${this.paths.stateDb}: ${(error as Error).message}`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The run store is closed');
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.readOnly) throw new Error('The run store is open read-only');
  }
}

/** `seq` goes first in every line: EventLog.read skips lines under a snapshot by that prefix. */
function makeEvent(seq: number, runId: string, body: RunEventBody): RunEvent {
  const at = new Date().toISOString();
  // The second copy wins over any stray seq/runId/at in the body; the first fixes key order.
  return Object.assign({ seq, runId, at }, body, { seq, runId, at }) as RunEvent;
}
