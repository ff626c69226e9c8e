import type { RunState } from './runState';

/**
 * The one count every view shows: tasks merged of all, and beside it the tasks skipped, so "4/5"
 * means "4 of 5 merged" in the CLI, the tree, the status bar, the notifications and the run view.
 * A skipped task is counted as skipped, never as done next to merged work; approved work still in
 * the merge queue is neither.
 */
export interface TaskCounts {
  total: number;
  merged: number;
  skipped: number;
}

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
  return { total, merged, skipped };
}

/** "4/5 merged" or "4/5 merged, 1 skipped": the counts in words, as the end of a run says them. */
export function countWords(counts: TaskCounts): string {
  return `${counts.merged}/${counts.total} merged${counts.skipped ? `, ${counts.skipped} skipped` : ''}`;
}

/** "4 of 5 tasks merged, 1 skipped", for a sentence or a tooltip. */
export function countSentence(counts: TaskCounts): string {
  return `${counts.merged} of ${counts.total} tasks merged${counts.skipped ? `, ${counts.skipped} skipped` : ''}`;
}
