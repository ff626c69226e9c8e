import fs from 'node:fs';
import { EVENT_SCHEMA_VERSION, type RunEvent, type RunEventBody } from '../domain/events';
import { applyEvent } from '../domain/projection';
import { isRunOver, type RunState } from '../domain/runState';
import { derivedFilesUpToDate, writeDerivedFiles } from './derivedFiles';
import { freshRunSummary } from './runSummaryFile';
import { redactEventBody, redactorFor, type Redactor } from '../io/redactSecrets';
import { stripTerminalControls } from '../text/terminalText';
import { EventLog, LogWriteError, type ReadOptions, type ReadResult } from './eventLog';
import { WorkspaceLock } from './lock';
import { runPaths, taskloomPaths, type RunPaths, type TaskloomPaths } from './paths';
import { indexEntryOf } from '../domain/runIndex';
import { compareNewestFirst, rebuildIndex, reconcileIndex } from './runIndex';
import { loadRunState } from './runLoader';
import { StateDb, type RunIndexEntry } from './stateDb';
import { counted } from '../text/counted';
import { TaskloomError } from '../domain/taskloomError';
import { assertTaskloomFolder } from './taskloomFolder';

export type RunCreatedBody = Extract<RunEventBody, { type: 'run_created' }>;

export interface RunStoreOptions {
  /** Shown to a second process that finds the workspace locked, e.g. "taskloom run". */
  command: string;
  /** No lock, no writes at all (not even repairs): for `runs`, `trace` and viewing a run another process drives. */
  readOnly?: boolean;
  /** Problems met in the background (a derived file or state.json that could not be written). Default: stderr. */
  onWarning?: (message: string) => void;
  /** The clock (ms) the rewrites of run.json and DECISIONS.md are throttled by. Default: performance.now. */
  now?: () => number;
}

export class RunNotFoundError extends TaskloomError {
  constructor(readonly runId: string) {
    super('bad_input', `No run "${runId}" in this workspace`, 'The runs here are listed with their ids.', { next: [{ kind: 'listRuns' }], code: 'run_not_found' });
    this.name = 'RunNotFoundError';
  }
}

/** The log grows by at least this much between two snapshots. */
export const SNAPSHOT_MIN_BYTES = 128 * 1024;
/**
 * A snapshot is due once a run's log has grown since its last one by this share of
 * state.json's size. Writing state.json costs about its size, so the cost of snapshots per
 * byte (and per event) appended stays the same however long the run grows, and a load after a
 * crash replays at most that share of state.json's size of log.
 */
export const SNAPSHOT_LOG_GROWTH = 0.5;
/** run.json and DECISIONS.md are rewritten at most this often while a run is busy... */
export const DERIVED_FILES_INTERVAL_MS = 300;
/** ...and less often when rendering them takes long: at most this share of the time goes to it. */
export const DERIVED_FILES_MAX_TIME_SHARE = 0.05;

interface DerivedFilesState {
  lastWrite: number;
  /** How long the last rewrite took (ms). */
  lastCost: number;
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
 * Everything else is derived and may lag the log: state.json (the index, and a snapshot of
 * each run once its log has grown by SNAPSHOT_LOG_GROWTH of state.json's size, written
 * just after the append that made it due, and at once at pause/finish), run.json and
 * DECISIONS.md (throttled). Loading a run writes nothing when the files are up to date.
 */
export class RunStore {
  private readonly states = new Map<string, RunState>();
  private readonly logs = new Map<string, EventLog>();
  private readonly derived = new Map<string, DerivedFilesState>();
  /**
   * Runs whose log could not be appended to (disk full): every later append of the run fails
   * with the same error until the store is opened again. A smaller event could still fit
   * where the failed one did not, and a run that went on with a step missing from its record
   * (or blamed a task for the disk) would not be the run that resume continues.
   */
  private readonly unwritable = new Map<string, LogWriteError>();
  /** The index in memory differs from state.json. */
  private dbDirty = false;
  private dbWrite: NodeJS.Immediate | undefined;
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
    private readonly now: () => number,
  ) {
    // Prepended so the derived files are written before the lock's own exit handler releases it.
    if (!readOnly) process.prependListener('exit', this.onExit);
  }

  /**
   * Opens `<repoRoot>/.taskloom/`: takes the workspace lock (LockHeldError when another live
   * process has it), opens state.json (rebuilt from the logs when missing or damaged) and
   * brings the index up to date with the logs. Read-only opens create and repair nothing.
   * What the index caught up on is written with the next write of state.json (at the latest
   * on close): it is derived from the logs and found again by the next open until then.
   */
  static open(repoRoot: string, options: RunStoreOptions): { store: RunStore; warnings: string[] } {
    const paths = taskloomPaths(repoRoot);
    const readOnly = options.readOnly ?? false;
    const onWarning = options.onWarning ?? ((message: string) => console.error(`taskloom: ${message}`));
    const warnings: string[] = [];
    let lock: WorkspaceLock | undefined;
    assertTaskloomFolder(paths.dir);
    if (!readOnly) {
      fs.mkdirSync(paths.runsDir, { recursive: true });
      lock = WorkspaceLock.acquire(paths.dir, { command: options.command });
      warnings.push(...lock.warnings);
    }
    try {
      const rebuildWarnings: string[] = [];
      const hadIndex = fs.existsSync(paths.stateDb);
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
      const store = new RunStore(repoRoot, paths, opened.db, lock, readOnly, onWarning, options.now ?? (() => performance.now()));
      if (reconcileIndex(opened.db, paths.runsDir, warnings)) store.dbDirty = true;
      const found = opened.db.runs().length;
      if (!hadIndex && found > 0) {
        // Runs on disk but no index: it was deleted (or lost before its first write). Said, and
        // written back at once, like a corrupt one.
        warnings.push(
          `${paths.stateDb} was missing; the index was rebuilt from the event logs (${counted(found, 'run')})${readOnly ? ' in memory (read-only, nothing was written)' : ''}`,
        );
        if (!readOnly) store.writeDb();
      }
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
    this.writeDb();
    this.writeDerivedNow(runId);
    return event;
  }

  /** Appends an event to a run (loading it first if needed) and returns it once it is durable. */
  append(runId: string, body: RunEventBody): RunEvent {
    this.assertWritable();
    if (body.type === 'run_created') throw new Error('run_created starts a run: use createRun');
    const unwritable = this.unwritable.get(runId);
    if (unwritable) throw unwritable;
    const state = this.state(runId);
    const log = this.openLog(runId, this.runPaths(runId));
    const event = makeEvent(state.lastSeq + 1, runId, body);
    try {
      applyEvent(state, event);
      log.append(event);
    } catch (error) {
      this.states.delete(runId);
      if (error instanceof LogWriteError) this.unwritable.set(runId, error);
      throw error;
    }
    this.db.putRun(indexEntryOf(state));
    this.dbDirty = true;
    if (event.type === 'run_finished' || event.type === 'run_paused') {
      this.writeDb();
      this.writeDerivedNow(runId);
      if (event.type === 'run_finished') this.writeSummary(runId);
      return event;
    }
    if (this.snapshotDue(runId)) this.scheduleDbWrite();
    this.scheduleDerived(runId);
    return event;
  }

  /**
   * A run's state: snapshot plus the events after it (only the bytes after it are read), or
   * the whole log when there is no snapshot or it does not fit. A writable store returns the
   * live state when it has one, else repairs a torn last line and keeps the loaded state
   * live; it writes state.json and the derived files only when they are behind the log (and
   * then a little later, not in the load). A read-only store reads the disk every time,
   * since another process may be writing the run.
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
    // The snapshot's state becomes the run's state: the index keeps only its JSON, if it has that.
    const loaded = loadRunState(paths.events, runId, this.db.takeSnapshot(runId));
    warnings.push(...loaded.warnings);
    const state = loaded.state;
    this.states.set(runId, state);
    if (this.readOnly) return { state, warnings };

    const entry = indexEntryOf(state);
    if (!sameEntry(this.db.run(runId), entry)) {
      this.db.putRun(entry);
      this.dbDirty = true;
    }
    if (loaded.snapshotRejected) this.db.dropSnapshot(runId);
    if (loaded.snapshotRejected || this.snapshotDue(runId)) this.scheduleDbWrite();
    const derived = this.derivedState(runId);
    derived.lastWrite = this.now();
    if (!derivedFilesUpToDate(paths, state)) this.scheduleDerived(runId);
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
      .map((entry) => ({ ...entry }))
      .sort(compareNewestFirst);
  }

  lastRunId(): string | undefined {
    return this.db.lastRunId;
  }

  /** The newest run that is not completed or cancelled: what "Resume last run" offers. */
  latestUnfinishedRunId(): string | undefined {
    return this.listRuns().find((run) => !isRunOver(run.status))?.runId;
  }

  /**
   * Deletes a run: its folder under runs/ (log, run.json, DECISIONS.md) and its index entry
   * with its snapshot. The folder goes first: if the process dies in between, the next open
   * drops the entry whose log is gone, whereas a log left without its entry would bring the
   * run back.
   */
  removeRun(runId: string): void {
    this.assertWritable();
    const paths = this.runPaths(runId);
    if (!fs.existsSync(paths.events) && !this.db.run(runId)) throw new RunNotFoundError(runId);
    this.logs.get(runId)?.close();
    this.logs.delete(runId);
    this.states.delete(runId);
    clearTimeout(this.derived.get(runId)?.timer);
    this.derived.delete(runId);
    fs.rmSync(paths.dir, { recursive: true, force: true });
    this.db.removeRun(runId);
    const newest = this.listRuns()[0];
    if (this.db.lastRunId === undefined && newest) this.db.setLastRunId(newest.runId);
    this.writeDb();
  }

  runPaths(runId: string): RunPaths {
    return runPaths(this.paths.runsDir, runId);
  }

  /**
   * Writes the snapshot(s) to state.json and the derived files now: of `runId`, or of every
   * live run (state.json is written whole, so it takes every live run's snapshot that moved
   * on). Nothing is written when nothing changed. Write failures go to `onWarning` rather
   * than throw: every event is already durable in its log, and nothing derived from it
   * should fail a run.
   */
  flush(runId?: string): void {
    if (this.readOnly || this.closed) return;
    let behind = this.dbDirty;
    for (const [id, state] of this.states) {
      if (runId !== undefined && id !== runId) continue;
      if (!this.db.fileHasSnapshotAt(id, state.lastSeq)) behind = true;
    }
    if (behind) this.writeDb();
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
      if (this.dbWrite) clearImmediate(this.dbWrite);
      this.dbWrite = undefined;
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

  /**
   * Whether the run's log has grown enough since its snapshot in state.json for a new one:
   * by SNAPSHOT_LOG_GROWTH of state.json's size, and at least SNAPSHOT_MIN_BYTES.
   */
  private snapshotDue(runId: string): boolean {
    const log = this.logs.get(runId);
    if (!log) return false;
    const since = log.size - (this.db.snapshot(runId)?.logBytes ?? 0);
    return since >= Math.max(SNAPSHOT_MIN_BYTES, SNAPSHOT_LOG_GROWTH * this.db.fileLength);
  }

  /** state.json is written right after the current call returns (once, however many ask). */
  private scheduleDbWrite(): void {
    if (this.dbWrite || this.readOnly || this.closed) return;
    this.dbWrite = setImmediate(() => {
      this.dbWrite = undefined;
      if (!this.closed) this.writeDb();
    });
    // A pending write must not keep a finished process alive: the exit handler flushes.
    this.dbWrite.unref();
  }

  private scheduleDerived(runId: string): void {
    const derived = this.derivedState(runId);
    derived.pending = true;
    if (derived.timer) return;
    const interval = Math.max(DERIVED_FILES_INTERVAL_MS, derived.lastCost / DERIVED_FILES_MAX_TIME_SHARE);
    const wait = derived.lastWrite + interval - this.now();
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

  /** The run's summary for `taskloom stats`, kept when a run ends so that stats over many runs reads no log. */
  private writeSummary(runId: string): void {
    try {
      const { warnings } = freshRunSummary(this.runPaths(runId), runId);
      warnings.forEach(this.onWarning);
    } catch (error) {
      this.onWarning(`Run ${runId}: could not write its summary for stats: ${(error as Error).message}`);
    }
  }

  private writeDerivedNow(runId: string): void {
    const derived = this.derivedState(runId);
    clearTimeout(derived.timer);
    derived.timer = undefined;
    const state = this.states.get(runId);
    if (this.readOnly || !state) return;
    const started = this.now();
    try {
      writeDerivedFiles(this.runPaths(runId), state);
      derived.pending = false;
    } catch (error) {
      this.onWarning(`Run ${runId}: could not write run.json / DECISIONS.md: ${(error as Error).message}`);
    } finally {
      derived.lastCost = this.now() - started;
      derived.lastWrite = this.now();
    }
  }

  private derivedState(runId: string): DerivedFilesState {
    let derived = this.derived.get(runId);
    if (!derived) {
      derived = { lastWrite: -Infinity, lastCost: 0, pending: false };
      this.derived.set(runId, derived);
    }
    return derived;
  }

  /**
   * Writes state.json, first snapshotting every live run whose snapshot is behind it (each
   * serialised once; the other snapshots go in as the JSON they have). It lags harmlessly
   * when it cannot be written: every event is already durable in its log.
   */
  private writeDb(): void {
    if (this.dbWrite) clearImmediate(this.dbWrite);
    this.dbWrite = undefined;
    try {
      for (const [id, state] of this.states) {
        if (!this.db.canWriteSnapshotAt(id, state.lastSeq)) this.db.setSnapshot(id, state, this.logs.get(id)?.size);
      }
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

const sameEntry = (a: RunIndexEntry | undefined, b: RunIndexEntry): boolean =>
  a !== undefined &&
  a.runId === b.runId &&
  a.goal === b.goal &&
  a.createdAt === b.createdAt &&
  a.updatedAt === b.updatedAt &&
  a.status === b.status &&
  a.lastSeq === b.lastSeq;

/**
 * `seq` goes first in every line: EventLog.read skips lines under a snapshot by that prefix.
 * Every event the store writes is made here, so this is where secrets are taken out of it,
 * and terminal escapes, control characters and bidi overrides that agents and gates print:
 * the log, the snapshot in state.json, run.json, DECISIONS.md, the webview, the tree and the
 * CLI's output all derive from the cleaned event (see redactSecrets.ts for what counts as a
 * secret, inertText.ts for the controls).
 */
function makeEvent(seq: number, runId: string, body: RunEventBody): RunEvent {
  const at = new Date().toISOString();
  const v = EVENT_SCHEMA_VERSION;
  // The second copy wins over any stray seq/runId/at/v in the body; the first fixes key order.
  return Object.assign({ seq, runId, at, v }, redactEventBody(body, cleanText()), { seq, runId, at, v }) as RunEvent;
}

function cleanText(): Redactor {
  const secrets = redactorFor();
  return { envValues: secrets.envValues, redact: (text) => stripTerminalControls(secrets.redact(text)) };
}
