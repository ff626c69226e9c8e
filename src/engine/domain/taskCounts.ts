import type { RunState } from './runState';
import { isDone } from './taskStates';

export interface TaskCounts {
  total: number;
  /** Merged into the integration branch, or skipped: approved work still in the merge queue is not done. */
  done: number;
  merged: number;
  skipped: number;
}

/** The counts every view shows, so "3/5 done" means the same in the CLI, the tree, the status bar and the run view. */
export function countTasks(state: Pick<RunState, 'tasks'>): TaskCounts {
  const tasks = Object.values(state.tasks);
  return {
    total: tasks.length,
    done: tasks.filter((t) => isDone(t.state)).length,
    merged: tasks.filter((t) => t.state === 'MERGED').length,
    skipped: tasks.filter((t) => t.state === 'SKIPPED').length,
  };
}
