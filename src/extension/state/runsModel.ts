import type { RunEvent } from '../../engine/domain/events';
import { applyEvent } from '../../engine/domain/projection';
import { pullRequestsToWatch } from '../../engine/domain/pullRequestStatus';
import { countTasks } from '../../engine/domain/taskCounts';
import { indexEntryOf } from '../../engine/domain/runIndex';
import type { RunState } from '../../engine/domain/runState';
import type { RunListEntry } from '../../protocol/engineProtocol';

/** What changed in one run since the last flush; the tree refreshes exactly these nodes. */
export interface RunChange {
  folder: string;
  runId: string;
  /** The run's own row (status, counts, cost) changed. */
  run: boolean;
  /** Tasks whose row or children changed. */
  tasks: Set<string>;
  /** Tasks were added or removed (a new plan): the run's children must be re-read. */
  structure: boolean;
  /** A critic verdict arrived (the Problems panel is rebuilt only then). */
  verdicts: boolean;
}

export interface ModelChange {
  /** Runs were added or removed in these folders. */
  folders: Set<string>;
  runs: RunChange[];
}

export interface RunEntry {
  folder: string;
  summary: RunListEntry;
  /** Loaded on demand (tree expansion, run view); folded live from then on. */
  state?: RunState;
  /** The seq of the last run_finished folded live (see setActive). */
  finishedSeq?: number;
}

export type Scheduler = (flush: () => void) => void;

/**
 * Flushes as soon as the current task ends when the last flush is at least `intervalMs` old (an
 * event of a quiet run reaches the views at once), else `intervalMs` after it: a burst of
 * 50,000 events costs one flush per interval, however the notifications arrive.
 */
export const throttledScheduler = (intervalMs = 30, now: () => number = () => performance.now()): Scheduler => {
  let last = -Infinity;
  return (flush) => {
    const run = () => {
      last = now();
      flush();
    };
    const wait = last + intervalMs - now();
    if (wait <= 0) setImmediate(run);
    else setTimeout(run, wait);
  };
};

/**
 * The extension's picture of every run in every folder: run summaries from `listRuns`, full
 * states folded with the engine's own projection as events arrive. No `vscode` here, so the
 * update path can be measured and tested in plain Node.
 */
export class RunsModel {
  private readonly folders = new Map<string, Map<string, RunEntry>>();
  private readonly listeners = new Set<(change: ModelChange) => void>();
  private pending: ModelChange | undefined;
  private flushScheduled = false;
  /** Runs whose events came with a gap (e.g. after an engine restart): their state must be fetched again. */
  private readonly stale = new Set<string>();

  constructor(private readonly schedule: Scheduler = throttledScheduler()) {}

  onDidChange(listener: (change: ModelChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  folderPaths(): string[] {
    return [...this.folders.keys()];
  }

  runs(folder: string): RunEntry[] {
    return [...(this.folders.get(folder)?.values() ?? [])].sort((a, b) => b.summary.createdAt.localeCompare(a.summary.createdAt));
  }

  allRuns(): RunEntry[] {
    return this.folderPaths().flatMap((folder) => this.runs(folder));
  }

  run(folder: string, runId: string): RunEntry | undefined {
    return this.folders.get(folder)?.get(runId);
  }

  /**
   * Replaces a folder's run list (keeping loaded states of runs that are still there). A listing
   * is not newer than the events folded since it was asked for: where the model holds more of the
   * run, its own summary stands; and a run whose last event is its end is not being driven, though
   * a listing made between that event and the engine letting go of the run says so.
   */
  setRuns(folder: string, summaries: RunListEntry[]): void {
    const previous = this.folders.get(folder) ?? new Map<string, RunEntry>();
    const next = new Map<string, RunEntry>();
    for (const listed of summaries) {
      const old = previous.get(listed.runId);
      const keepState = old?.state && old.state.lastSeq >= listed.lastSeq ? old.state : undefined;
      let summary = listed;
      if (keepState && old) {
        if (keepState.lastSeq > listed.lastSeq) summary = old.summary;
        else if (old.finishedSeq === keepState.lastSeq) summary = { ...listed, active: false };
      }
      const finishedSeq = keepState ? old?.finishedSeq : undefined;
      next.set(listed.runId, { folder, summary, ...(keepState ? { state: keepState } : {}), ...(finishedSeq !== undefined ? { finishedSeq } : {}) });
      if (old && !keepState && old.state) this.stale.add(key(folder, listed.runId));
    }
    this.folders.set(folder, next);
    this.pendingChange().folders.add(folder);
    this.scheduleFlush();
  }

  removeFolder(folder: string): void {
    if (!this.folders.delete(folder)) return;
    this.pendingChange().folders.add(folder);
    this.scheduleFlush();
  }

  /** Installs a freshly fetched state; events after it keep arriving through `applyEvents`. */
  setState(folder: string, state: RunState, active?: boolean): void {
    const runs = this.folders.get(folder) ?? new Map<string, RunEntry>();
    this.folders.set(folder, runs);
    const existing = runs.get(state.runId);
    const isNew = !existing;
    runs.set(state.runId, { folder, summary: summaryOf(state, existing?.summary, active), state, ...(existing?.finishedSeq !== undefined ? { finishedSeq: existing.finishedSeq } : {}) });
    this.stale.delete(key(folder, state.runId));
    if (isNew) this.pendingChange().folders.add(folder);
    const change = this.runChange(folder, state.runId);
    change.run = true;
    change.structure = true;
    this.scheduleFlush();
  }

  /**
   * Marks whether this window's engine is driving the run now. `sinceSeq`: the run's last seq
   * before the request that drives it; a run_finished folded after it means that drive already
   * ended (a last skip completes a run before its answer arrives), so the run stays finished.
   */
  setActive(folder: string, runId: string, active: boolean, sinceSeq?: number): void {
    const entry = this.run(folder, runId);
    if (!entry || entry.summary.active === active) return;
    if (active && sinceSeq !== undefined && (entry.finishedSeq ?? -1) > sinceSeq) return;
    entry.summary = { ...entry.summary, active };
    this.runChange(folder, runId).run = true;
    this.scheduleFlush();
  }

  /**
   * The engine is gone: no run is driven from this window any more, so every step it was
   * running shows as interrupted until a resume (or a restarted engine's list) says otherwise.
   */
  markAllStopped(): void {
    for (const entry of this.allRuns()) {
      if (!entry.summary.active) continue;
      entry.summary = { ...entry.summary, active: false };
      const change = this.runChange(entry.folder, entry.summary.runId);
      change.run = true;
      change.structure = true;
    }
    this.scheduleFlush();
  }

  /**
   * Folds new events onto the run's state. Returns false when the state is missing or the
   * events do not follow it (the caller fetches the run again).
   */
  applyEvents(folder: string, runId: string, events: RunEvent[]): boolean {
    const entry = this.run(folder, runId);
    if (!entry?.state) {
      if (events[0]?.type === 'run_created') {
        const active = events.reduce<boolean>((now, event) => activityAfter(event) ?? now, true);
        this.setState(folder, foldFresh(events), active);
        const finished = [...events].reverse().find((event) => event.type === 'run_finished');
        if (finished) this.run(folder, runId)!.finishedSeq = finished.seq;
        return true;
      }
      this.stale.add(key(folder, runId));
      return false;
    }
    const state = entry.state;
    const change = this.runChange(folder, runId);
    let active = entry.summary.active;
    for (const event of events) {
      if (event.seq <= state.lastSeq) continue;
      if (event.seq !== state.lastSeq + 1) {
        this.stale.add(key(folder, runId));
        this.scheduleFlush();
        return false;
      }
      applyEvent(state, event);
      if (event.type === 'run_finished') entry.finishedSeq = event.seq;
      noteChange(change, event);
      active = activityAfter(event) ?? active;
    }
    entry.summary = summaryOf(state, entry.summary, active);
    change.run = true;
    this.scheduleFlush();
    return true;
  }

  isStale(folder: string, runId: string): boolean {
    return this.stale.has(key(folder, runId));
  }

  /** Delivers the pending change now (tests and benchmarks; otherwise the scheduler does). */
  flush(): void {
    const change = this.pending;
    this.pending = undefined;
    this.flushScheduled = false;
    if (!change) return;
    for (const listener of this.listeners) listener(change);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.schedule(() => this.flush());
  }

  private pendingChange(): ModelChange {
    this.pending ??= { folders: new Set(), runs: [] };
    return this.pending;
  }

  private runChange(folder: string, runId: string): RunChange {
    const pending = this.pendingChange();
    let change = pending.runs.find((c) => c.folder === folder && c.runId === runId);
    if (!change) {
      change = { folder, runId, run: false, tasks: new Set(), structure: false, verdicts: false };
      pending.runs.push(change);
    }
    return change;
  }
}

const key = (folder: string, runId: string) => `${folder}\u0000${runId}`;

function foldFresh(events: RunEvent[]): RunState {
  let state: RunState | undefined;
  for (const event of events) state = applyEvent(state, event);
  return state!;
}

/** Whether the engine is working on the run after `event`, when the event says so. */
function activityAfter(event: RunEvent): boolean | undefined {
  if (event.type === 'run_finished') return false;
  if (event.type === 'run_created' || event.type === 'run_resumed' || event.type === 'plan_approved') return true;
  return undefined;
}

function noteChange(change: RunChange, event: RunEvent): void {
  // A pull request is a row under its run: rare events, so the run's rows are simply redrawn.
  if (event.type === 'plan_proposed' || event.type === 'pull_request' || event.type.startsWith('pr_')) change.structure = true;
  if (event.type === 'critic_verdict') change.verdicts = true;
  if ('taskId' in event && typeof event.taskId === 'string') change.tasks.add(event.taskId);
}


function summaryOf(state: RunState, previous: RunListEntry | undefined, active?: boolean): RunListEntry {
  return {
    ...indexEntryOf(state),
    ...countTasks(state),
    active: active ?? previous?.active ?? false,
    planApproved: state.planApproved,
    foreign: previous?.foreign ?? false,
    pullRequestsToWatch: pullRequestsToWatch(state).length,
    // Measured by the engine when the runs are listed; events do not change it.
    ...(previous?.diskBytes !== undefined ? { diskBytes: previous.diskBytes } : {}),
  };
}
