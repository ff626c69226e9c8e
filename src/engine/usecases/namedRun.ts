import type { TaskView } from '../domain/runState';
import type { RunSession } from '../session/runSession';
import type { RunStore } from '../store/runStore';
import type { FrontDoor } from './frontDoor';
import { NoRunError, UnknownTaskError } from './useCaseErrors';

/** The run a use case acts on: the one named, else the newest run here. */
export function namedOrNewestRun(store: RunStore, runId: string | undefined): string {
  const chosen = runId ?? store.lastRunId();
  if (!chosen) throw new NoRunError('There is no run here');
  return chosen;
}

/** The task a use case acts on, in the run named (else the newest), with that run's session; an unknown task is refused. */
export function namedTask(door: FrontDoor, runId: string | undefined, taskId: string): { runId: string; session: RunSession; task: TaskView } {
  const chosen = namedOrNewestRun(door.engine.store, runId);
  const session = door.session(chosen);
  const task = session.state.tasks[taskId];
  if (!task) throw new UnknownTaskError(chosen, taskId, session.state.taskOrder);
  return { runId: chosen, session, task };
}
