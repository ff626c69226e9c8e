import type { ApplyHistory } from '../domain/events';
import type { ApplyIntegrationParams, ApplyIntegrationResult, ApplyPreview, DiscardRunParams, RestoreSnapshotParams, RestoreSnapshotResult } from '../../protocol/engineProtocol';
import { planApply } from '../deliver/applyPlan';
import { applyRun } from '../deliver/applyRun';
import { discardRun as discardRunFor } from '../deliver/discardRun';
import type { ServerOutput } from './serverOutput';
import type { WorkspaceHosts } from './workspaceHosts';
import { appliedAs } from '../text/applyWords';
import { counted } from '../text/counted';

/** What applying a run to the user's current branch would make (for the editor's confirmation), changing nothing. */
export async function previewApply(hosts: WorkspaceHosts, params: ApplyIntegrationParams): Promise<ApplyPreview> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine(async (engine) => {
    const plan = await planApply(host.session(engine, params.runId, params.folder), host.root, historyOf(params));
    return { branch: plan.repo.headRef, commits: plan.commits, alreadyApplied: plan.alreadyApplied, leftOut: plan.leftOut.map(({ taskId, title }) => ({ taskId, title })) };
  });
}

/**
 * Applies a completed run to the user's current branch in the main worktree (refused on a dirty
 * tree; a conflict is aborted), as `taskloom apply` does; records the apply in the run's log.
 */
export async function applyIntegrationBranch(hosts: WorkspaceHosts, output: ServerOutput, params: ApplyIntegrationParams): Promise<ApplyIntegrationResult> {
  const host = await hosts.forFolder(params.folder);
  const history = historyOf(params);
  return host.withEngine(async (engine) => {
    const runId = params.runId;
    host.assertIdle(runId);
    const session = host.session(engine, runId, params.folder);
    const applied = await applyRun(session, host.root, history);
    output.log(
      applied.alreadyApplied
        ? `Run ${runId} was already applied to ${applied.branch}`
        : `Applied run ${runId} to ${applied.branch} as ${appliedAs(history, applied.commits)}: now at ${applied.commit.slice(0, 10)}, ${counted(applied.files.length, 'file')} changed`,
    );
    const { branch, commit, files, commits, alreadyApplied, leftOut } = applied;
    return { branch, commit, files, commits, alreadyApplied, leftOut: leftOut.map(({ taskId, title }) => ({ taskId, title })) };
  });
}

const historyOf = (params: ApplyIntegrationParams): ApplyHistory => params.history ?? 'merge';

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

/**
 * Removes a run for good, as `taskloom discard` does: refused while this server plans or drives
 * it (another process driving the workspace holds the lock, which refuses it too), and without
 * `force` while approved work was never applied or pushed.
 */
export async function discardRun(hosts: WorkspaceHosts, output: ServerOutput, params: DiscardRunParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine(async (engine) => {
    const runId = params.runId;
    host.assertIdle(runId);
    const removed = await discardRunFor(engine, engine.session(runId), params.force === true);
    output.log(`Discarded run ${runId}: ${counted(removed.worktrees.length, 'worktree')}, ${counted(removed.branches.length, 'branch', 'branches')} removed`);
  });
}
