import { WorkspaceError } from './errors';
import { Git } from './git';
import { headCommitOf, isAncestor, resolveCommit, splitNul, unmergedFiles } from './gitQueries';
import { inspectRepo, type RepoInfo } from './repoInspector';
import { mergeInProgressAt } from './worktreeFiles';
import { repoGit, usersOwnGit } from './worktreeManager';

export interface MergedIntoBranch {
  /** The user's branch, now at `commit`. */
  branch: string;
  commit: string;
  /** Files the change brought into the user's tree. */
  files: string[];
}

/**
 * The user's checkout, ready to receive a run: a clean tree (Taskloom's own `.taskloom/` aside)
 * on a branch. The one place Taskloom touches the user's tree is after this check.
 */
export async function checkoutToApplyTo(cwd: string): Promise<RepoInfo> {
  const repo = await inspectRepo(cwd);
  if (repo.dirtyPaths.length) {
    const shown = repo.dirtyPaths.slice(0, 5).join(', ') + (repo.dirtyPaths.length > 5 ? ` and ${repo.dirtyPaths.length - 5} more` : '');
    throw new WorkspaceError(
      `Your working tree has uncommitted changes (${shown})`,
      'Commit or stash them first, so the run cannot mix with your own edits.',
    );
  }
  if (repo.headRef === 'HEAD') {
    throw new WorkspaceError('HEAD is detached', 'Check out the branch the run should be applied to, then apply again.');
  }
  return repo;
}

/** True when `commit` is already in the user's branch (applied before, by merge or as squashed commits). */
export async function branchContains(repo: RepoInfo, commit: string): Promise<boolean> {
  return isAncestor(new Git(repo.root, { taskloomIdentity: false, observer: repo.gitObserver }), commit, repo.headCommit);
}

/**
 * Merges `source` into the user's branch with a merge commit (never a fast-forward, so the
 * branch's first-parent history has one commit for the run), as the repository's identity,
 * signed where it signs. The user's hooks run (pre-merge-commit, post-merge…): applying is the
 * user's own action on their own branch. A conflicting merge is aborted, leaving branch and tree as they were.
 */
export async function mergeIntoCurrentBranch(repo: RepoInfo, source: string, message: string): Promise<MergedIntoBranch> {
  const git = usersOwnGit(repo, repo.root);
  if (!(await resolveCommit(git, source))) throw new WorkspaceError(`${source} does not exist`, 'It may have been deleted; the run cannot be applied.');
  let failure: unknown;
  try {
    await (await git.typed()).merge(['--no-ff', '-m', message, source]);
  } catch (error) {
    failure = error;
  }
  return finish(repo, source, failure, 'merge');
}

/** Moves the user's branch (and tree) forward to `commit`, which must descend from it; the user's post-merge hook runs. */
export async function fastForwardCurrentBranch(repo: RepoInfo, commit: string): Promise<MergedIntoBranch> {
  const git = usersOwnGit(repo, repo.root);
  let failure: unknown;
  try {
    await (await git.typed()).merge(['--ff-only', commit]);
  } catch (error) {
    failure = error;
  }
  return finish(repo, commit, failure, 'fast-forward');
}

async function finish(repo: RepoInfo, source: string, failure: unknown, what: string): Promise<MergedIntoBranch> {
  const git = repoGit(repo, repo.root);
  const conflicted = await unmergedFiles(git);
  if (mergeInProgressAt(repo.root)) await git.run(['merge', '--abort']);
  if (conflicted.length) {
    throw new WorkspaceError(
      `Merging the run into ${repo.headRef} conflicts in ${conflicted.join(', ')}; the merge was aborted and ${repo.headRef} is unchanged`,
      `Merge ${source} yourself to resolve the conflicts.`,
      { next: [{ kind: 'mergeByHand', source }] },
    );
  }
  const after = await headCommitOf(git);
  if (failure !== undefined && after === repo.headCommit) {
    throw new WorkspaceError(
      `The ${what} into ${repo.headRef} failed: ${(failure as Error).message.trim()}`,
      `Your branch is unchanged; try merging ${source} yourself.`,
      { cause: failure, next: [{ kind: 'mergeByHand', source }] },
    );
  }
  const files = after === repo.headCommit ? [] : splitNul((await git.run(['diff', '--name-only', '-z', repo.headCommit, after, '--'])).stdout);
  return { branch: repo.headRef, commit: after, files };
}
