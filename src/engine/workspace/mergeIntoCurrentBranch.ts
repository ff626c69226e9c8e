import { WorkspaceError } from './errors';
import { createGit } from './git';
import { resolveCommit, splitNul, unmergedFiles } from './gitQueries';
import { inspectRepo } from './repoInspector';
import { mergeInProgressAt } from './worktreeFiles';

export interface MergedIntoBranch {
  /** The user's branch, now at `commit`. */
  branch: string;
  commit: string;
  /** Files the merge changed in the user's tree. */
  files: string[];
  how: 'fast-forward' | 'merge' | 'already-merged';
}

/**
 * Merges `source` into the branch checked out in the repository's main worktree: the one
 * command with which Taskloom touches the user's tree. Refuses a dirty tree (Taskloom's own
 * `.taskloom/` aside) and a detached HEAD; fast-forwards when it can, else makes a merge
 * commit with the user's identity (Taskloom's when the user has none); a conflicting merge is
 * aborted, leaving branch and tree as they were.
 */
export async function mergeIntoCurrentBranch(cwd: string, source: string, message: string): Promise<MergedIntoBranch> {
  const repo = await inspectRepo(cwd);
  if (repo.dirtyPaths.length) {
    const shown = repo.dirtyPaths.slice(0, 5).join(', ') + (repo.dirtyPaths.length > 5 ? ` and ${repo.dirtyPaths.length - 5} more` : '');
    throw new WorkspaceError(
      `Your working tree has uncommitted changes (${shown})`,
      'Commit or stash them first, so the merge cannot mix with your own edits.',
    );
  }
  if (repo.headRef === 'HEAD') {
    throw new WorkspaceError('HEAD is detached', 'Check out the branch the run should be merged into, then apply again.');
  }
  const probe = createGit(repo.root, { taskloomIdentity: false });
  const sourceCommit = await resolveCommit(probe, `refs/heads/${source}`);
  if (!sourceCommit) throw new WorkspaceError(`Branch ${source} does not exist`, 'It may have been deleted; the run cannot be applied.');
  const hasIdentity = (await probe.raw(['config', '--get', 'user.email']).catch(() => '')).trim() !== '';
  const git = createGit(repo.root, { taskloomIdentity: !hasIdentity });
  const before = repo.headCommit;

  let failure: unknown;
  try {
    await git.raw(['merge', '--no-edit', '-m', message, source]);
  } catch (error) {
    failure = error;
  }
  const conflicted = await unmergedFiles(git);
  if (mergeInProgressAt(repo.root)) await git.raw(['merge', '--abort']);
  if (conflicted.length) {
    throw new WorkspaceError(
      `Merging ${source} into ${repo.headRef} conflicts in ${conflicted.join(', ')}; the merge was aborted and ${repo.headRef} is unchanged`,
      `Merge it yourself to resolve the conflicts: git merge ${source}`,
    );
  }
  const after = (await git.raw(['rev-parse', 'HEAD'])).trim();
  if (failure !== undefined && after === before) {
    throw new WorkspaceError(
      `Merging ${source} into ${repo.headRef} failed: ${(failure as Error).message.trim()}`,
      `Your branch is unchanged; try it yourself with: git merge ${source}`,
      { cause: failure },
    );
  }
  const files = before === after ? [] : splitNul(await git.raw(['diff', '--name-only', '-z', before, after, '--']));
  const how = before === after ? 'already-merged' : after === sourceCommit ? 'fast-forward' : 'merge';
  return { branch: repo.headRef, commit: after, files, how };
}
