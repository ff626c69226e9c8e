import { discardRun as removeRun, type DiscardOutcome } from '../deliver/discardRun';
import { assertNotBusy } from './busyRuns';
import type { FrontDoor } from './frontDoor';
import { namedOrNewestRun } from './namedRun';

export interface DiscardParams {
  /** By default the newest run. */
  runId?: string;
  /** Even when approved work of the run was never applied or pushed (UnpublishedWorkError without it). */
  force?: boolean;
}

/** Removes a run for good: its worktrees, branches, snapshot refs and record (a run from an issue says so on the issue last). Refused while its door plans or drives it. */
export async function discardRun(door: FrontDoor, params: DiscardParams): Promise<DiscardOutcome & { runId: string }> {
  const runId = namedOrNewestRun(door.engine.store, params.runId);
  assertNotBusy(door, runId);
  const session = door.session(runId);
  // Read now: once removed, the run has no state to read.
  const { state } = session;
  const removed = await removeRun(door.engine, session, params.force === true);
  await door.engine.tellIssueRunDiscarded(state);
  return { runId, ...removed };
}
