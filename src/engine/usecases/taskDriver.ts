import type { RunControl } from '../session/runControl';
import { describeLockOwner, liveLockOwner } from '../store/lock';
import { taskloomPaths } from '../store/paths';
import type { TaskView } from '../domain/runState';
import { isInFlight } from '../domain/taskStates';
import type { RunStore } from '../store/runStore';
import type { FrontDoor } from './frontDoor';

/**
 * Who acts on a run's task now: this process's drive (its RunControl); another process, which holds
 * the workspace lock, so this door's engine is open read-only and can only ask (the run's inbox);
 * or nobody, and the door's engine, the log's writer, records the change itself.
 */
export type TaskDriver = { kind: 'here'; control: RunControl } | { kind: 'elsewhere'; owner: string | undefined } | { kind: 'nobody' };

export function taskDriver(door: FrontDoor, runId: string): TaskDriver {
  const control = door.engine.runControl(runId);
  if (control) return { kind: 'here', control };
  if (!door.engine.store.readOnly) return { kind: 'nobody' };
  const owner = liveLockOwner(taskloomPaths(door.engine.repo.root).dir);
  return { kind: 'elsewhere', owner: owner ? describeLockOwner(owner) : undefined };
}

/** How often the log is read again while another process is asked to act. */
const LOOK_EVERY_MS = 250;

/**
 * Waits, reading the run's log as it is written by the process that drives it, until `done` holds
 * for the task; the task then, or undefined when `waitMs` passed first (the driver has not acted
 * yet: it reads its inbox as it drives, or when the run is next driven).
 */
export async function awaitTask(store: RunStore, runId: string, taskId: string, waitMs: number, done: (task: TaskView) => boolean): Promise<TaskView | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const task = store.loadRun(runId).state.tasks[taskId];
    if (task && done(task)) return task;
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
}

/** The task's work is no longer under way. */
export const outOfFlight = (task: TaskView): boolean => !isInFlight(task.state);
