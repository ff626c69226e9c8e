import { isRunOver, type RunState, type TaskView } from '../engine/domain/runState';
import type { TaskEvent } from '../engine/domain/taskStates';
import { isInFlight, isWaitingForHuman } from '../engine/domain/taskStates';
import { criticFindingsOf, type FileFinding } from '../engine/report/criticFindings';

/** A person's decision on a task: whatever the critic said before it is settled. */
const DECISIONS: ReadonlySet<TaskEvent> = new Set(['HUMAN_RETRY', 'HUMAN_ACCEPTED', 'HUMAN_SKIPPED', 'HAND_RESOLVED']);

/**
 * The critic findings still open in a run: those of a task whose latest review still holds it
 * (its actor reworking them, or the task waiting for you), and that nobody decided on since.
 * A retried task starts over, an accepted one is green, a skipped or merged one is done.
 */
export function openFindingsOf(state: RunState): FileFinding[] {
  // A run that is over has nothing left for its findings to ask of anyone.
  if (isRunOver(state.status)) return [];
  return criticFindingsOf(state).filter((finding) => {
    const task = state.tasks[finding.taskId];
    return task !== undefined && heldByReview(task) && !decidedSince(task, finding.seq);
  });
}

const heldByReview = (task: TaskView): boolean => isInFlight(task.state) || isWaitingForHuman(task.state);

const decidedSince = (task: TaskView, seq: number): boolean => task.transitions.some((t) => t.seq > seq && DECISIONS.has(t.event));

/**
 * A run stopped for you, whose state is worth loading (once) just for the Problems panel. Runs
 * being driven load anyway as their events come; the rest are not read until they are opened.
 */
export const waitsForYou = (status: RunState['status']): boolean => status === 'needs_human' || status === 'paused';
