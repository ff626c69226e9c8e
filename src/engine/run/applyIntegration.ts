import type { RunState } from '../domain/runState';
import { WorkspaceError } from '../workspace/errors';
import { mergeIntoCurrentBranch, type MergedIntoBranch } from '../workspace/mergeIntoCurrentBranch';

/**
 * Merges a completed run's integration branch into the user's current branch (see
 * mergeIntoCurrentBranch for what is refused). Only a completed run: anything less is not
 * all green, merged and gated.
 */
export async function applyIntegration(state: RunState, cwd: string): Promise<MergedIntoBranch> {
  if (state.status !== 'completed') {
    throw new WorkspaceError(
      `Run ${state.runId} is ${state.status.replace('_', ' ')}, not completed`,
      'Only a completed run (every task green, merged and gated) can be applied; review its integration branch yourself otherwise.',
    );
  }
  const branch = state.integration.branch;
  if (!branch) throw new WorkspaceError(`Run ${state.runId} has no integration branch`, 'Nothing was merged, so there is nothing to apply.');
  return mergeIntoCurrentBranch(cwd, branch, `Merge ${branch}: ${state.goal.split('\n')[0]!.slice(0, 72)}`);
}
