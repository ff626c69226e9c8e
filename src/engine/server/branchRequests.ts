import type { ApplyIntegrationResult, RunParams } from '../../protocol/engineProtocol';
import { applyIntegration } from '../run/applyIntegration';
import { WorktreeManager } from '../workspace/worktreeManager';
import { checkedRunId } from './checkedParams';
import type { ServerOutput } from './serverOutput';
import type { WorkspaceHosts } from './workspaceHosts';

/**
 * Merges a completed run's integration branch into the user's current branch in the main
 * worktree (refused on a dirty tree; a conflict is aborted). Changes no run, so it needs no lock.
 */
export async function applyIntegrationBranch(hosts: WorkspaceHosts, output: ServerOutput, params: RunParams): Promise<ApplyIntegrationResult> {
  const host = await hosts.forFolder(params.folder);
  const state = await host.withStore((store) => store.loadRun(checkedRunId(params.runId)).state);
  const applied = await applyIntegration(state, host.root);
  output.log(`Applied run ${state.runId} to ${applied.branch} (${applied.how}): now at ${applied.commit.slice(0, 10)}, ${applied.files.length} file(s) changed`);
  return { branch: applied.branch, commit: applied.commit, files: applied.files };
}

/**
 * Removes a run for good: its worktrees, its `taskloom/<run>/*` branches (work included) and
 * its record. Refused while this server plans or drives it; another process driving the
 * workspace holds the lock, which refuses it too.
 */
export async function discardRun(hosts: WorkspaceHosts, output: ServerOutput, params: RunParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine(async (engine) => {
    const runId = checkedRunId(params.runId);
    host.assertIdle(runId);
    engine.store.loadRun(runId);
    const removed = await new WorktreeManager(engine.repo, runId).discardRun();
    engine.store.removeRun(runId);
    output.findings({ folder: params.folder, runId, findings: [] });
    output.log(`Discarded run ${runId}: ${removed.worktrees.length} worktree(s), ${removed.branches.length} branch(es) removed`);
  });
}
