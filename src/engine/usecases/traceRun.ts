import { LIVE_RUN_STATUSES } from '../domain/runState';
import { runPhase, type RunPhase } from '../domain/runPhase';
import type { TimingClock } from '../domain/taskTimings';
import { buildTraceReport, type TraceReport } from '../report/traceReport';
import { liveLockOwner } from '../store/lock';
import { taskloomPaths } from '../store/paths';
import type { RunStore } from '../store/runStore';
import { namedOrNewestRun } from './namedRun';

export interface TraceParams {
  /** By default the newest run. */
  runId?: string;
}

export interface RunTrace {
  report: TraceReport;
  /** A process drives the run now; without one, its steps under way read "interrupted". */
  live: boolean;
  /** Its phase as the user sees it (domain/runPhase.ts): "stopped" where nothing drives a live status. */
  phase: RunPhase;
  /** What loading its log had to say (a torn last line…). */
  warnings: string[];
}

/** A run's tasks, transitions with their reasons, attempts, timings and usage, as of now (read-only is enough). */
export function traceRun(store: RunStore, params: TraceParams): RunTrace {
  const { state, warnings } = store.loadRun(namedOrNewestRun(store, params.runId));
  // A status that says the run goes on is only true while a process holds the workspace lock: otherwise it stopped.
  const live = LIVE_RUN_STATUSES.has(state.status) && liveLockOwner(taskloomPaths(store.repoRoot).dir) !== undefined;
  const clock: TimingClock = { now: Date.now(), live };
  return { report: buildTraceReport(state, clock), live, phase: runPhase(state.status, live, state), warnings };
}
