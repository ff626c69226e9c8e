import type { RunIndexEntry } from '../domain/runIndex';
import type { RunState } from '../domain/runState';
import { pullRequestsToWatch } from '../domain/pullRequestStatus';
import { countTasks, type TaskCounts } from '../domain/taskCounts';
import { errorText } from '../domain/taskloomError';
import { isKnownRun } from '../run/runProvenance';
import { liveLockOwner } from '../store/lock';
import { taskloomPaths } from '../store/paths';
import type { RunStore } from '../store/runStore';
import { namedOrNewestRun } from './namedRun';

/** A run as listed: its index entry, its tasks counted, and its state when its log loads. */
export interface ListedRun extends RunIndexEntry, TaskCounts {
  /** Undefined when the run's log does not load (a warning says why); it is listed all the same. */
  state: RunState | undefined;
  planApproved: boolean;
  /** Not started by Taskloom on this machine (decided by the user's own record: `createdBy.host` can lie). */
  foreign: boolean;
  pullRequestsToWatch: number;
}

export interface RunListing {
  /** Newest first. */
  runs: ListedRun[];
  /** A process holds the workspace lock: a run whose status says it goes on is driven (otherwise it stopped). */
  driven: boolean;
  warnings: string[];
}

/** The runs of the repository, newest first, from its store (read-only is enough). */
export function listRuns(store: RunStore): RunListing {
  const warnings: string[] = [];
  const runs = store.listRuns().map((entry): ListedRun => {
    let state: RunState | undefined;
    try {
      const loaded = store.loadRun(entry.runId);
      warnings.push(...loaded.warnings);
      state = loaded.state;
    } catch (error) {
      warnings.push(`Run ${entry.runId}: ${errorText(error as Error)}`);
    }
    return {
      ...entry,
      ...(state ? countTasks(state) : { merged: 0, skipped: 0, total: 0 }),
      state,
      planApproved: state?.planApproved ?? false,
      foreign: state !== undefined && !isKnownRun(store.repoRoot, state),
      pullRequestsToWatch: state ? pullRequestsToWatch(state).length : 0,
    };
  });
  return { runs, driven: liveLockOwner(taskloomPaths(store.repoRoot).dir) !== undefined, warnings };
}

export interface GetRunParams {
  /** By default the newest run. */
  runId?: string;
}

/** A run's whole projected state. */
export function getRun(store: RunStore, params: GetRunParams): RunState {
  return store.loadRun(namedOrNewestRun(store, params.runId)).state;
}
