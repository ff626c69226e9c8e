import type { FrontDoor } from './frontDoor';
import { NotCancellableError } from './useCaseErrors';

export interface CancelParams {
  runId: string;
}

/**
 * Stops a run's planning or driving (agents and gates are stopped; the run is recorded as
 * cancelled, and resume continues it) and resolves once it has stopped. A run that only waits
 * for its plan's approval is ended as cancelled. A door that drives in the foreground cancels by
 * its own means (the CLI's Ctrl-C); here such a run is one nobody drives, and is refused.
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
  throw new NotCancellableError(runId, state.status);
}
