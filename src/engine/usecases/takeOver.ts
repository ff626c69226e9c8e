import { existsSync } from 'node:fs';
import type { Confinement } from '../domain/sandboxSettings';
import { TASK_STATE_WORDS } from '../domain/stateWords';
import { isInFlight } from '../domain/taskStates';
import { takeOverInDrive } from '../run/personAtTask';
import type { TakeOverSession } from '../session/takeOverSession';
import { RunInbox } from '../store/runInbox';
import type { FrontDoor } from './frontDoor';
import { namedTask } from './namedRun';
import { STOP_WAIT_MS } from './stopTask';
import { awaitTask, outOfFlight, taskDriver } from './taskDriver';
import { NothingToTakeOverError } from './useCaseErrors';

export interface TakeOverParams {
  /** By default the newest run. */
  runId?: string;
  taskId: string;
  /** Who takes it over, as the task's reason says it ("taken over by you"). */
  by: string;
}

/** The task waits for the person now; what their session runs, and where. */
export interface TakenOver {
  runId: string;
  taskId: string;
  /** The agent's interactive session (or a shell) in the task's worktree; the door opens it. */
  session: TakeOverSession;
  confinement: Confinement;
  /** Whether the log says "taken over by <who>" yet: not while another process drives the run and has not acted on the request. */
  recorded: boolean;
}

/** How long a take over of a task that already waits for the person waits for the driving process to record it. */
const RECORD_WAIT_MS = 3_000;

/**
 * A person takes a task over: its work under way is stopped (in this process's drive, by asking
 * the process that drives the run, or directly when nobody does), it waits for them ("taken over
 * by <who>"), and the answer says what session opens in its worktree: the actor's agent, resumed
 * from its session, or a shell. The door opens it (the CLI on its terminal, the editor in a
 * terminal running the CLI); handing back is `continue` (decideTask).
 */
export async function takeOver(door: FrontDoor, params: TakeOverParams, waitMs = STOP_WAIT_MS): Promise<TakenOver> {
  const { engine } = door;
  const { taskId, by } = params;
  const { runId, session, task } = namedTask(door, params.runId, taskId);
  if (!isInFlight(task.state) && task.state !== 'NEEDS_HUMAN') throw new NothingToTakeOverError(taskId, `it is ${TASK_STATE_WORDS[task.state]}`);
  if (!task.worktreePath || !existsSync(task.worktreePath)) throw new NothingToTakeOverError(taskId, 'it has no worktree');
  let recorded = true;
  const driver = taskDriver(door, runId);
  if (driver.kind === 'here') {
    await takeOverInDrive({ session, control: driver.control }, taskId, by);
  } else if (driver.kind === 'nobody') {
    if (isInFlight(task.state)) await engine.stopUndrivenTask(session, taskId, by);
    engine.recordTakeOver(session, taskId, by);
  } else {
    if (task.withPerson !== 'taken_over') new RunInbox(engine.store.runPaths(runId).dir).post({ kind: 'take_over', taskId, from: by });
    // A task at work is waited for (its agent must be gone before the person's session opens in the same worktree); one that waits for them, briefly, for the record.
    const seen = await awaitTask(engine.store, runId, taskId, isInFlight(task.state) ? waitMs : RECORD_WAIT_MS, (t) => t.withPerson === 'taken_over' || (outOfFlight(t) && t.state !== 'NEEDS_HUMAN'));
    const now = seen ?? engine.store.loadRun(runId).state.tasks[taskId]!;
    if (now.state !== 'NEEDS_HUMAN') throw new NothingToTakeOverError(taskId, `${driver.owner ?? 'the process that drives the run'} has not stopped it (it is ${TASK_STATE_WORDS[now.state]}); try again in a moment`);
    recorded = now.withPerson === 'taken_over';
  }
  const state = driver.kind === 'elsewhere' ? engine.store.loadRun(runId).state : session.state;
  const current = state.tasks[taskId]!;
  if (current.state !== 'NEEDS_HUMAN') throw new NothingToTakeOverError(taskId, `it is ${TASK_STATE_WORDS[current.state]}`);
  const { confinement, ...opened } = await engine.takeOverSession(state, taskId);
  return { runId, taskId, session: opened, confinement, recorded };
}
