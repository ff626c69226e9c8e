import { WorkspaceError } from './errors';
import { FULL_HASH } from './worktreeFiles';
import { Git } from './git';
import { refsUnder } from './gitQueries';
import { withEverythingStaged } from './scratchIndex';
import type { RepoLocation } from './worktreeManager';

/** Keeps an actor snapshot reachable (so `git gc` does not drop it) without being a branch. */
export function actorSnapshotRef(runId: string, taskId: string, attempt: number): string {
  return `refs/taskloom/${runId}/${taskId}/attempt-${attempt}`;
}

/** Where every snapshot ref of a run lives (`git for-each-ref` pattern, whole components only). */
export function actorSnapshotRefPrefix(runId: string): string {
  return `refs/taskloom/${runId}`;
}

export interface ActorSnapshot {
  commit: string;
  ref: string;
}

/**
 * Records the worktree exactly as it is (committed, staged, unstaged and untracked files; ignored
 * files are left out, as git always does) as a commit whose parent is HEAD, and points `ref` at it.
 * The branch, HEAD, the worktree's own index and its files are untouched, so the snapshot is never
 * part of the task's history nor of a merge. Four git commands: add, write-tree, commit-tree,
 * update-ref, in a scratch copy of the index (see withEverythingStaged).
 */
export async function snapshotWorktree(repo: RepoLocation, path: string, ref: string, message: string): Promise<ActorSnapshot> {
  try {
    return await withEverythingStaged(path, (env) => new Git(path, { env, observer: repo.gitObserver }), async (git) => {
      const tree = (await git.run(['write-tree'])).stdout.trim();
      // Never signed: a snapshot is never part of a branch, and a signing prompt must not stall an attempt.
      const commit = (await git.run(['commit-tree', '--no-gpg-sign', tree, '-p', 'HEAD', '-m', message])).stdout.trim();
      if (!FULL_HASH.test(commit)) throw new Error(`git commit-tree printed "${commit}"`);
      await git.run(['update-ref', '-m', message, ref, commit]);
      return { commit, ref };
    });
  } catch (error) {
    throw new WorkspaceError(
      `Could not snapshot ${path} before the actor's attempt: ${(error as Error).message.trim()}`,
      'Check that the task worktree is a healthy checkout, then retry the task.',
      { cause: error },
    );
  }
}

/** Deletes every snapshot ref of a run (for a discarded run); returns the refs deleted. */
export async function deleteActorSnapshotRefs(git: Git, runId: string): Promise<string[]> {
  const refs = await refsUnder(git, actorSnapshotRefPrefix(runId));
  if (refs.length) await git.run(['update-ref', '--stdin'], { input: refs.map((ref) => `delete ${ref}\n`).join('') });
  return refs;
}

