import { gcRuns, type GcOutcome } from '../deliver/gcRuns';
import type { FrontDoor } from './frontDoor';

export interface CollectParams {
  /** Only say what would go. */
  dryRun?: boolean;
}

/**
 * Removes what finished runs left (worktrees, branches, snapshot refs) and prunes stale `git
 * worktree` entries; approved work never applied or pushed is kept, and runs keep their record.
 */
export function collectLeftovers(door: FrontDoor, params: CollectParams): Promise<GcOutcome> {
  return gcRuns(door.engine, { dryRun: params.dryRun === true });
}
