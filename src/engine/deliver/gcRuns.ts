import { existsSync } from 'node:fs';
import { isOpenAsSeen } from '../domain/pullRequestStatus';
import { isRunOver, type RunState, type RunStatus } from '../domain/runState';
import { actorSnapshotRefPrefix } from '../workspace/actorSnapshot';
import { measureDiskUsage } from '../workspace/diskUsage';
import { refsUnder } from '../workspace/gitQueries';
import { isInside, listWorktrees } from '../workspace/worktreeOps';
import { repoGit, WorktreeManager } from '../workspace/worktreeManager';
import { unpublishedWork, type RepoRuns } from './discardRun';

/** What one finished run still holds in the repository. */
export interface RunLeftovers {
  runId: string;
  status: RunStatus;
  worktrees: number;
  branches: number;
  snapshotRefs: number;
  bytes: number;
}

/** Why a run's leftovers were not touched (data; the view words it). */
export type GcKeptReason =
  | { kind: 'unpublished_work'; taskIds: string[] }
  | { kind: 'pull_request_open'; number: number };

export interface GcOutcome {
  /** Removed (or, in a dry run, would be removed). */
  freed: RunLeftovers[];
  kept: Array<RunLeftovers & { reason: GcKeptReason }>;
  /** `git worktree` entries whose folder was gone, pruned (or to prune). */
  staleEntries: number;
  dryRun: boolean;
}

/**
 * Removes what finished runs (completed, cancelled, failed) left behind: their worktrees, their
 * `taskloom/<run>/*` branches and actor snapshot refs, then prunes stale `git worktree` entries.
 * The run's record and log stay (`runs` and `trace` still show it). Runs whose approved work exists
 * nowhere else (the rule `discard` applies without --force) and runs with an open pull request are
 * kept as they are. Runs that are not finished (running, paused, needing a person) are never looked at.
 */
export async function gcRuns(repoRuns: RepoRuns, options: { dryRun: boolean }): Promise<GcOutcome> {
  const outcome: GcOutcome = { freed: [], kept: [], staleEntries: 0, dryRun: options.dryRun };
  const git = repoGit(repoRuns.repo, repoRuns.repo.root);
  const registered = await listWorktrees(git);
  // Entries whose folder is gone, as `git worktree list` marks them (counted before a discard prunes them;
  // `git worktree prune` says what it removes on stderr only).
  outcome.staleEntries = registered.filter((e) => e.prunable).length;
  for (const entry of repoRuns.store.listRuns()) {
    // A run that is over: what it left in the repository is only taking space.
    if (!isRunOver(entry.status)) continue;
    const { state } = repoRuns.store.loadRun(entry.runId);
    if (!isRunOver(state.status)) continue;
    const manager = new WorktreeManager(repoRuns.repo, state.runId, state.config.worktree?.root);
    const left = await leftovers(repoRuns, state, manager, registered);
    if (left.worktrees + left.branches + left.snapshotRefs === 0 && left.bytes === 0) continue;
    const reason = await reasonToKeep(state, repoRuns.repo.root);
    if (reason) {
      outcome.kept.push({ ...left, reason });
      continue;
    }
    if (!options.dryRun) await manager.discardRun();
    outcome.freed.push(left);
  }
  if (!options.dryRun) await git.run(['worktree', 'prune']);
  return outcome;
}

async function leftovers(
  repoRuns: RepoRuns,
  state: RunState,
  manager: WorktreeManager,
  registered: Awaited<ReturnType<typeof listWorktrees>>,
): Promise<RunLeftovers> {
  const git = repoGit(repoRuns.repo, repoRuns.repo.root);
  const refs = async (pattern: string) => (await refsUnder(git, pattern)).length;
  const dir = manager.worktreeDir;
  const worktrees = existsSync(dir) ? registered.filter((e) => isInside(e.path, dir)).length : 0;
  return {
    runId: state.runId,
    status: state.status,
    worktrees,
    branches: await refs(`refs/heads/taskloom/${state.runId}`),
    snapshotRefs: await refs(actorSnapshotRefPrefix(state.runId)),
    bytes: existsSync(dir) ? (await measureDiskUsage(dir)).bytes : 0,
  };
}

async function reasonToKeep(state: RunState, repoRoot: string): Promise<GcKeptReason | null> {
  const lost = await unpublishedWork(state, repoRoot);
  if (lost.length) return { kind: 'unpublished_work', taskIds: lost };
  // `watch` keeps an open pull request green from the run's branches and worktree.
  const open = Object.values(state.pullRequests).find(isOpenAsSeen);
  if (open) return { kind: 'pull_request_open', number: open.number };
  return null;
}
