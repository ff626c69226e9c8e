import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceError } from './errors';
import { hasStagedChanges, headCommitOf, unmergedFiles } from './gitQueries';
import { mergeInProgressAt } from './worktreeFiles';
import { usersOwnGit, type RepoLocation } from './worktreeManager';

/** What becomes one commit: a merge commit's change against its first parent, or a run of plain commits. */
export type SquashStep = { mergeCommit: string; message: string } | { commits: string[]; message: string };

/**
 * Replays each step's change onto `onto` as one commit (the repository's identity, signed where
 * it signs), in a temporary worktree, so the user's tree is untouched until the result is ready.
 * The user's hooks run (pre-commit, commit-msg…): these commits are the ones their branch receives.
 * A step with no change makes no commit. Returns the last commit (or `onto` when none was made)
 * and how many were made; a conflict is aborted and the temporary worktree removed.
 */
export async function squashOnto(repo: RepoLocation, onto: string, steps: SquashStep[]): Promise<{ head: string; commits: number }> {
  const main = usersOwnGit(repo, repo.root);
  const dir = await mkdtemp(join(tmpdir(), 'taskloom-squash-'));
  const path = join(dir, 'tree');
  await main.run(['worktree', 'add', '-q', '--detach', path, onto]);
  const wt = usersOwnGit(repo, path);
  let commits = 0;
  try {
    for (const step of steps) {
      try {
        await wt.run(['cherry-pick', '--no-commit', ...('mergeCommit' in step ? ['-m', '1', step.mergeCommit] : step.commits)]);
      } catch (error) {
        const files = await unmergedFiles(wt);
        if (mergeInProgressAt(path) || files.length) await wt.run(['cherry-pick', '--abort']).catch(() => undefined);
        throw new WorkspaceError(
          `Replaying ${step.message.split('\n')[0]} onto your branch conflicts${files.length ? ` in ${files.join(', ')}` : ''}: ${(error as Error).message.trim()}`,
          'Your branch moved since the run started, where the run also changed things. Apply with merge history instead, or rebase your branch on the run base.',
          { cause: error },
        );
      }
      if (!(await hasStagedChanges(wt))) continue;
      await wt.run(['commit', '-q', '-m', step.message]);
      commits += 1;
    }
    return { head: await headCommitOf(wt), commits };
  } finally {
    await main.run(['worktree', 'remove', '--force', path]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await main.run(['worktree', 'prune']).catch(() => undefined);
  }
}
