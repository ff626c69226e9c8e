import type { FrontDoor } from './frontDoor';
import { RunBusyError } from './useCaseErrors';

/** Refuses a change to a run the door plans or drives in the background right now. */
export function assertNotBusy(door: FrontDoor, runId: string): void {
  const work = door.backgroundWork(runId);
  if (work) throw new RunBusyError(runId, work);
}
