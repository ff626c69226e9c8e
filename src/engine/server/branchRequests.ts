import type { ApplyIntegrationParams, ApplyIntegrationResult, ApplyPreview, DiscardRunParams, RestoreSnapshotParams, RestoreSnapshotResult } from '../../protocol/engineProtocol';
import * as applying from '../usecases/applyIntegration';
import * as discarding from '../usecases/discardRun';
import type { ServerOutput } from './serverOutput';
import type { WorkspaceHosts } from './workspaceHosts';
import { appliedAs } from '../text/applyWords';
import { counted } from '../text/counted';

/** What applying a run to the user's current branch would make (for the editor's confirmation), changing nothing. */
export async function previewApply(hosts: WorkspaceHosts, params: ApplyIntegrationParams): Promise<ApplyPreview> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const { branch, commits, alreadyApplied, leftOut } = await applying.previewApply(host.door(engine, params.folder), params);
    return { branch, commits, alreadyApplied, leftOut };
  });
}

/** Applies a completed run to the user's current branch, as `taskloom apply` does (src/engine/usecases/applyIntegration.ts). */
export async function applyIntegrationBranch(hosts: WorkspaceHosts, output: ServerOutput, params: ApplyIntegrationParams): Promise<ApplyIntegrationResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const applied = await applying.applyIntegration(host.door(engine, params.folder), params);
    output.log(
      applied.alreadyApplied
        ? `Run ${applied.runId} was already applied to ${applied.branch}`
        : `Applied run ${applied.runId} to ${applied.branch} as ${appliedAs(applied.history, applied.commits)}: now at ${applied.commit.slice(0, 10)}, ${counted(applied.files.length, 'file')} changed`,
    );
    const { branch, commit, files, commits, alreadyApplied, leftOut } = applied;
    return { branch, commit, files, commits, alreadyApplied, leftOut };
  });
}

/** Puts a task's worktree back as an actor snapshot holds it; refused while this server drives the run (see restoreActorSnapshot). */
export async function restoreSnapshot(hosts: WorkspaceHosts, output: ServerOutput, params: RestoreSnapshotParams): Promise<RestoreSnapshotResult> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    host.assertIdle(params.runId);
    const restored = await engine.restoreSnapshot(host.session(engine, params.runId, params.folder), params.seq);
    output.log(`Restored the snapshot before attempt ${restored.attempt} of "${restored.taskId}" in ${restored.worktree}: ${counted(restored.files.length, 'file')} put back`);
    return restored;
  });
}

/** Removes a run for good, as `taskloom discard` does (src/engine/usecases/discardRun.ts). */
export async function discardRun(hosts: WorkspaceHosts, output: ServerOutput, params: DiscardRunParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine(async (engine) => {
    const removed = await discarding.discardRun(host.door(engine, params.folder), params);
    output.log(`Discarded run ${removed.runId}: ${counted(removed.worktrees.length, 'worktree')}, ${counted(removed.branches.length, 'branch', 'branches')} removed`);
    // The run is gone, so what its issue's comment could not be told is the engine's to say.
    for (const warning of engine.warnings.splice(0)) output.log(`${params.folder}: ${warning}`);
  });
}
