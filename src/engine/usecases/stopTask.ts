import { isInFlight, type TaskState } from '../domain/taskStates';
import { RunInbox } from '../store/runInbox';
import type { FrontDoor } from './frontDoor';
import { namedTask } from './namedRun';
import { awaitTask, outOfFlight, taskDriver } from './taskDriver';
import { NothingToStopError } from './useCaseErrors';

export interface StopTaskParams {
  /** By default the newest run. */
  runId?: string;
  taskId: string;
  /** Who stops it, as the task's reason says it ("stopped by you"). */
  by: string;
}

/**
 * `stopped`: the task waits for the person now (this process stopped it). `asked`: another process
 * drives the run and was asked through the run's inbox; `state` is the task's once it acted on it
 * within the wait, undefined when it has not yet.
 */
export type StopTaskOutcome =
  | { kind: 'stopped'; runId: string; taskId: string; state: TaskState }
  | { kind: 'asked'; runId: string; taskId: string; driver: string | undefined; state: TaskState | undefined };

/** How long a stop asked of another process is waited for: its agent gets SIGINT, SIGTERM, then SIGKILL. */
export const STOP_WAIT_MS = 30_000;

/**
 * Stops one task's work (its agent, gate or critic); the rest of the run goes on, and the task
 * waits for the person, its work so far kept: "stopped by <who>". Where the run is driven decides
 * how (taskDriver): in this process's drive; by asking the process that drives it; or, in a run
 * nobody drives, directly, so that a resume does not start the task again.
 */
export async function stopTask(door: FrontDoor, params: StopTaskParams, waitMs = STOP_WAIT_MS): Promise<StopTaskOutcome> {
  const { engine } = door;
  const { taskId, by } = params;
  const { runId, session, task } = namedTask(door, params.runId, taskId);
  const driver = taskDriver(door, runId);
  switch (driver.kind) {
    case 'here':
      if (!driver.control.stopTask(taskId, by)) throw new NothingToStopError(taskId, task.state);
      await driver.control.settled(taskId);
      return { kind: 'stopped', runId, taskId, state: session.task(taskId).state };
    case 'elsewhere':
      if (!isInFlight(task.state)) throw new NothingToStopError(taskId, task.state);
      new RunInbox(engine.store.runPaths(runId).dir).post({ kind: 'stop', taskId, from: by });
      return { kind: 'asked', runId, taskId, driver: driver.owner, state: (await awaitTask(engine.store, runId, taskId, waitMs, outOfFlight))?.state };
    case 'nobody':
      if (!isInFlight(task.state)) throw new NothingToStopError(taskId, task.state);
      await engine.stopUndrivenTask(session, taskId, by);
      return { kind: 'stopped', runId, taskId, state: session.task(taskId).state };
  }
}
