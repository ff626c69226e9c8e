import { resumeOutlook } from '../domain/resumeOutlook';
import { isInFlight } from '../domain/taskStates';
import type { RunSession } from '../session/runSession';
import { counted } from '../text/counted';
import type { FrontDoor } from './frontDoor';
import { NotCancellableError } from './useCaseErrors';

export interface CancelParams {
  runId: string;
}

/**
 * Stops a run's planning or driving (agents and gates are stopped; the run is recorded as
 * cancelled, and resume continues it) and resolves once it has stopped. A run that only waits
 * for its plan's approval is ended as cancelled, and so is one paused for the user's choice about
 * its base (the other answers being to treat the base's failures as advisory, or keep them as
 * required). A door that drives in the foreground cancels by its own means (the CLI's Ctrl-C);
 * any other run nobody drives is refused.
 */
export async function cancelRun(door: FrontDoor, params: CancelParams): Promise<void> {
  const { runId } = params;
  if (door.backgroundWork(runId)) {
    await door.stopBackgroundWork(runId);
    return;
  }
  const session = door.session(runId);
  const { state } = session;
  if (state.status === 'planning' && !state.planApproved) {
    door.engine.rejectPlan(session, 'cancelled before its plan was approved; nothing was built');
    return;
  }
  const outlook = resumeOutlook(state);
  if (state.status === 'paused' && outlook.kind === 'choosesBaseline') {
    cancelPausedRun(session, outlook.commands);
    return;
  }
  throw new NotCancellableError(runId, state.status);
}

/** Ends the paused run as a stop ends a driven one: what had not finished is cancelled, resumable later. */
function cancelPausedRun(session: RunSession, commands: readonly string[]): void {
  let cancelled = 0;
  for (const taskId of session.state.taskOrder) {
    const task = session.task(taskId);
    if (task.state !== 'PENDING' && !isInFlight(task.state)) continue;
    session.transition(taskId, 'CANCELLED', 'the run was cancelled while it waited for a choice about its base');
    cancelled += 1;
  }
  const failing = commands.map((c) => `\`${c}\``).join(', ');
  session.emit({ type: 'run_finished', status: 'cancelled', summary: `cancelled by the user: ${failing} ${commands.length === 1 ? 'fails' : 'fail'} on the base (${counted(cancelled, 'task')} not finished)` });
}
