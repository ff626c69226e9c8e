import type { RunState } from '../domain/runState';
import type { RunSession } from '../session/runSession';
import type { RunStore } from '../store/runStore';
import { WorkspaceError } from '../workspace/errors';
import { Git } from '../workspace/git';
import { WorktreeManager, type RepoLocation } from '../workspace/worktreeManager';

/**
 * Tasks whose approved work (merged into integration, or green and waiting) exists nowhere but in
 * the run's own refs: not applied to one of the user's branches, not on a remote. Discarding the
 * run would lose it. Work applied with squash history is known from the run's record, since its
 * commits differ from the integration branch's.
 */
export async function unpublishedWork(state: RunState, repoRoot: string): Promise<string[]> {
  const git = new Git(repoRoot);
  const own = [`refs/heads/taskloom/${state.runId}/`, `refs/taskloom/${state.runId}/`];
  const publishedAt = async (commit: string): Promise<boolean> => {
    // A commit git no longer has is published nowhere.
    const refs = await git.run(['for-each-ref', '--contains', commit, '--format=%(refname)']).then(
      ({ stdout }) => stdout.split('\n').filter(Boolean),
      () => [],
    );
    return refs.some((ref) => !own.some((prefix) => ref.startsWith(prefix)));
  };
  const applied = state.applied !== undefined;
  const lost: string[] = [];
  for (const id of state.taskOrder) {
    const task = state.tasks[id]!;
    const merged = task.state === 'MERGED';
    const approved = ['GREEN', 'UNVERIFIED_BY_CRITIC', 'MERGING'].includes(task.state);
    if (!merged && !approved) continue;
    if (merged && applied) continue;
    const commit = merged ? task.mergeCommit : task.greenCommit;
    if (commit && !(await publishedAt(commit))) lost.push(id);
  }
  return lost;
}

/** Discarding the run would lose approved work: `taskIds` hold it. */
export class UnpublishedWorkError extends WorkspaceError {
  constructor(
    readonly runId: string,
    readonly taskIds: string[],
  ) {
    super(
      `Run ${runId} holds work that was never applied or pushed: ${taskIds.join(', ')}`,
      'Apply it first, or discard it anyway.',
      { next: [{ kind: 'apply', runId }, { kind: 'discardAnyway', runId }] },
    );
    this.name = 'UnpublishedWorkError';
  }
}

/** A repository and the store of its runs: what removing a run, or what finished runs left, works on (the engine is one). */
export interface RepoRuns {
  repo: RepoLocation;
  store: RunStore;
}

export interface DiscardOutcome {
  worktrees: string[];
  branches: string[];
}

/**
 * Removes a run for good: its worktrees, its `taskloom/<run>/*` branches and snapshot refs, and its
 * record. Without `force`, refuses while approved work would be lost (see unpublishedWork).
 */
export async function discardRun(repoRuns: RepoRuns, session: RunSession, force: boolean): Promise<DiscardOutcome> {
  const { state } = session;
  if (!force) {
    const lost = await unpublishedWork(state, repoRuns.repo.root);
    if (lost.length) throw new UnpublishedWorkError(state.runId, lost);
  }
  const removed = await new WorktreeManager(repoRuns.repo, state.runId, state.config.worktree?.root).discardRun();
  repoRuns.store.removeRun(state.runId);
  return removed;
}
