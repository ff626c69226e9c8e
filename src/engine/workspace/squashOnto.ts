import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceError } from './errors';
import type { Git } from './git';
import { hasStagedChanges, headCommitOf, unmergedFiles } from './gitQueries';
import { mergeInProgressAt } from './worktreeFiles';
import { usersOwnGit, type RepoLocation } from './worktreeManager';

/** One clean commit: `message`, holding exactly the tree of commit `treeOf` (its change is the difference from the step before). */
export interface SquashStep {
  treeOf: string;
  message: string;
}

/**
 * Makes one commit per step, as the repository's identity and signed where it signs, in a temporary
 * worktree, so the user's tree is untouched until the result is ready; returns the last commit made
 * (`onto` when none was). The user's hooks run (pre-commit, commit-msg…): these commits are the
 * ones their branch receives.
 *
 * The steps are first committed on `base`, each with its integration commit's tree exactly, so the
 * last holds what the gate passed on and no draft in between. When `onto` is another commit (the
 * user's branch moved since the run started), each is then replayed onto it; a step whose change
 * `onto` already holds makes no commit, and a conflict is aborted with nothing changed.
 */
export async function squashOnto(repo: RepoLocation, base: string, steps: SquashStep[], onto = base): Promise<string> {
  const main = usersOwnGit(repo, repo.root);
  const dir = await mkdtemp(join(tmpdir(), 'taskloom-squash-'));
  const path = join(dir, 'tree');
  await main.run(['worktree', 'add', '-q', '--detach', path, base]);
  const wt = usersOwnGit(repo, path);
  try {
    const line: Array<{ commit: string; message: string }> = [];
    for (const step of steps) {
      await wt.run(['read-tree', '-u', '--reset', step.treeOf]);
      if (await commitStaged(wt, step.message)) line.push({ commit: await headCommitOf(wt), message: step.message });
    }
    if (onto === base) return line.at(-1)?.commit ?? base;
    await wt.run(['checkout', '-q', '--detach', onto]);
    for (const { commit, message } of line) {
      await replay(wt, path, commit, message);
      await commitStaged(wt, message);
    }
    return await headCommitOf(wt);
  } finally {
    await main.run(['worktree', 'remove', '--force', path]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await main.run(['worktree', 'prune']).catch(() => undefined);
  }
}

/** Commits the index when it differs from HEAD; false when there was nothing to commit. */
async function commitStaged(wt: Git, message: string): Promise<boolean> {
  if (!(await hasStagedChanges(wt))) return false;
  await wt.run(['commit', '-q', '-m', message]);
  return true;
}

async function replay(wt: Git, path: string, commit: string, message: string): Promise<void> {
  try {
    await wt.run(['cherry-pick', '--no-commit', commit]);
  } catch (error) {
    const files = await unmergedFiles(wt);
    if (mergeInProgressAt(path) || files.length) await wt.run(['cherry-pick', '--abort']).catch(() => undefined);
    throw new WorkspaceError(
      `Replaying ${message.split('\n')[0]} onto your branch conflicts${files.length ? ` in ${files.join(', ')}` : ''}: ${(error as Error).message.trim()}`,
      'Your branch moved since the run started, where the run also changed things. Apply with merge history instead, or rebase your branch on the run base.',
      { cause: error },
    );
  }
}
