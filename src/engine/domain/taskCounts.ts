import type { RunState, TaskView } from './runState';

export interface TaskCounts {
  total: number;
  /**
   * Merged into the integration branch, or skipped for good. Approved work still in the merge
   * queue is not done, nor is a task skipped because a dependency waits for a person (it comes
   * back when they decide).
   */
  done: number;
  merged: number;
  skipped: number;
}

/** The counts every view shows, so "3/5 done" means the same in the CLI, the tree, the status bar and the run view. */
export function countTasks(state: Pick<RunState, 'tasks'>): TaskCounts {
  // Counted on every batch of events the editor folds: one pass, no allocation per task.
  let total = 0;
  let merged = 0;
  let skipped = 0;
  for (const id in state.tasks) {
    total += 1;
    const taskState = state.tasks[id]!.state;
    if (taskState === 'MERGED') merged += 1;
    else if (taskState === 'SKIPPED') skipped += 1;
  }
  return { total, done: skipped === 0 ? merged : doneTasks(state.tasks).size, merged, skipped };
}

/** Ids of the tasks that are done: MERGED, or SKIPPED by a person or because of such a skip. */
export function doneTasks(tasks: Readonly<Record<string, TaskView>>): Set<string> {
  const memo = new Map<string, boolean>();
  const isDone = (id: string, seen: ReadonlySet<string>): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const task = tasks[id];
    let done = false;
    if (task?.state === 'MERGED') done = true;
    else if (task?.state === 'SKIPPED') {
      // Skipped because of a dependency: done only when what it waits on is itself done for good.
      done = !task.skippedByDependency || (!seen.has(id) && task.dependsOn.some((dep) => tasks[dep]?.state === 'SKIPPED' && isDone(dep, new Set([...seen, id]))));
    }
    memo.set(id, done);
    return done;
  };
  return new Set(Object.keys(tasks).filter((id) => isDone(id, NONE_SEEN)));
}

const NONE_SEEN: ReadonlySet<string> = new Set();
