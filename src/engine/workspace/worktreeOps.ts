import { existsSync, realpathSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Git } from './git';
import { WorkspaceError } from './errors';
import { gitVersion } from './repoInspector';
import { parseWorktreeList, type WorktreeEntry } from './worktreeList';

// What the task side (WorktreeManager) and the merge queue's side (IntegrationBranch) of a run's
// worktrees both do to the repository.

const queues = new Map<string, Promise<void>>();

/** One repository-changing operation at a time per repository: git's own locks would make parallel ones fail, not wait. */
export function exclusive<T>(repoKey: string, work: () => Promise<T>): Promise<T> {
  const result = (queues.get(repoKey) ?? Promise.resolve()).then(work);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(repoKey, tail);
  void tail.then(() => {
    if (queues.get(repoKey) === tail) queues.delete(repoKey);
  });
  return result;
}

/** Every worktree registered in the repository (the user's too), from `git worktree list --porcelain`. */
export async function listWorktrees(git: Git): Promise<WorktreeEntry[]> {
  return parseWorktreeList((await git.run(['worktree', 'list', '--porcelain'])).stdout);
}

/**
 * Gets rid of whatever occupies `path` (a registered worktree, a locked half-created one, a stray
 * directory) and of other worktrees inside `runDir` holding `branch`, so it can be added again.
 */
export async function discardWorktree(git: Git, path: string, branch: string | null, runDir: string): Promise<void> {
  const stale = (await listWorktrees(git)).filter(
    (e) => samePath(e.path, path) || (branch !== null && e.branch === branch && isInside(e.path, runDir)),
  );
  const strayDirectory = existsSync(path);
  if (stale.length === 0 && !strayDirectory) return;
  for (const entry of stale) {
    // A crash during `worktree add` leaves it locked ("initializing"); prune skips locked entries.
    if (entry.locked) await git.run(['worktree', 'unlock', entry.path]).catch(() => undefined);
    if (isDirectory(entry.path)) {
      await git.run(['worktree', 'remove', '--force', '--force', entry.path]).catch(() => undefined);
    }
    await rm(entry.path, { recursive: true, force: true });
  }
  await rm(path, { recursive: true, force: true });
  await git.run(['worktree', 'prune']);
}

/**
 * `git worktree add -q <args>`, checking out `branch` unless it is detached; when that fails because
 * the branch is checked out in another worktree, says so.
 */
export async function addWorktree(git: Git, args: string[], branch?: string): Promise<void> {
  try {
    await git.run(['worktree', 'add', '-q', ...args]);
  } catch (error) {
    // Asked of the worktree list, not read from git's message.
    if (branch !== undefined && (await listWorktrees(git)).some((entry) => entry.branch === branch)) {
      throw new WorkspaceError(
        `Branch ${branch} is checked out in another worktree`,
        'Switch that worktree to another branch, then resume the run.',
        { cause: error, next: [{ kind: 'resume' }] },
      );
    }
    throw error;
  }
}

/** Brings a checkout back to `commit` exactly: no merge in progress, no changed or untracked files (ignored ones stay). */
export async function resetHard(wt: Git, commit: string, mergeInProgress: boolean): Promise<void> {
  if (mergeInProgress) await wt.run(['merge', '--abort']).catch(() => undefined);
  await wt.run(['reset', '--hard', '-q', commit]);
  await wt.run(['clean', '-fdq']);
}

let mergeNoVerifyFlags: Promise<string[]> | undefined;
/** `merge --no-verify` (skip the user's pre-merge-commit/commit-msg hooks) exists from git 2.24. */
export function mergeNoVerify(): Promise<string[]> {
  mergeNoVerifyFlags ??= gitVersion().then(
    ({ version }) => {
      const [major = 0, minor = 0] = version.split('.').map(Number);
      return major > 2 || (major === 2 && minor >= 24) ? ['--no-verify'] : [];
    },
    (error: unknown) => {
      mergeNoVerifyFlags = undefined; // ask again next time rather than remember a failure
      throw error;
    },
  );
  return mergeNoVerifyFlags;
}

export function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function canonical(path: string): string {
  return existsSync(path) ? realpathSync(path) : resolve(path);
}

export function samePath(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

export function isInside(path: string, dir: string): boolean {
  const child = canonical(path);
  const parent = canonical(dir);
  return child.startsWith(parent + '/') || child.startsWith(parent + '\\');
}

/** What a failed git call said (empty for none): not `errorText` of the domain, which words a user-facing error with its hint. */
export function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message : error ? String(error) : '';
}
