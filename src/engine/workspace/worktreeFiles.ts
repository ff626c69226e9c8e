import { existsSync, readFileSync, statSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

// Facts about a worktree read straight from its git directory: each would otherwise cost a git
// process, and spawning is the main cost of Taskloom's git work.

/** A crashed git leaves index.lock behind; one this old belongs to no running git. */
const STALE_LOCK_MS = 10_000;

/** Where a checkout keeps its HEAD, index and MERGE_HEAD: `.git` itself, or what a linked worktree's `.git` file points to. */
export function worktreeGitDir(worktreePath: string): string {
  const dotGit = join(worktreePath, '.git');
  if (statSync(dotGit).isDirectory()) return dotGit;
  const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!pointer) throw new Error(`${dotGit} does not point to a git directory`);
  return resolve(worktreePath, pointer[1]!);
}

/**
 * The git directory of the checkout whose top is `dir`, and the repository's common one (a linked
 * worktree's git directory names it in `commondir`); null when `dir` has no `.git`.
 */
export function ownGitDirs(dir: string): { gitDir: string; commonDir: string } | null {
  if (!existsSync(join(dir, '.git'))) return null;
  const gitDir = worktreeGitDir(dir);
  const commonDir = existsSync(join(gitDir, 'commondir')) ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()) : gitDir;
  return { gitDir, commonDir };
}

export function mergeInProgressAt(worktreePath: string): boolean {
  return existsSync(join(worktreeGitDir(worktreePath), 'MERGE_HEAD'));
}

export async function clearStaleIndexLock(worktreePath: string): Promise<void> {
  const lock = join(worktreeGitDir(worktreePath), 'index.lock');
  if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
}

/**
 * The commit a task worktree was prepared from, kept in the worktree's own git directory: it is
 * written only once preparation finished, and disappears with the worktree, so a leftover from an
 * earlier worktree at the same path can never be mistaken for this one's.
 */
const BASE_FILE = 'taskloom-base';

/** A full SHA-1 or SHA-256 object name, as git prints it. */
export const FULL_HASH = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * A commit recorded in one of our marker files, or null when the file is absent or holds anything
 * but a full hash: the value is handed to git as a revision, and a hand-edited `-…` would be taken
 * for an option.
 */
export async function readCommitMarker(path: string): Promise<string | null> {
  const text = (await readFile(path, 'utf8').catch(() => '')).trim();
  return FULL_HASH.test(text) ? text : null;
}

export async function recordTaskBase(worktreePath: string, commit: string): Promise<void> {
  await writeFile(join(worktreeGitDir(worktreePath), BASE_FILE), `${commit}\n`);
}

/** For a worktree handed to another task: until that one's preparation finishes, it has no base. */
export async function forgetTaskBase(worktreePath: string): Promise<void> {
  await rm(join(worktreeGitDir(worktreePath), BASE_FILE), { force: true });
}

/** null when the worktree is broken or its preparation never finished. */
export async function readTaskBase(worktreePath: string): Promise<string | null> {
  return readCommitMarker(join(worktreeGitDir(worktreePath), BASE_FILE));
}

/**
 * A git killed while it moved one of the run's refs leaves `<ref>.lock` behind, and every later
 * update of that ref fails. The engine holds the workspace lock and only Taskloom writes these
 * refs (`refs/heads/taskloom/<run>/…`, `refs/taskloom/<run>/…`), so at the start of a drive any
 * such lock is a dead process's debris. Returns the locks removed.
 */
export async function clearStaleRefLocks(gitCommonDir: string, runId: string): Promise<string[]> {
  return [
    ...(await removeLocksUnder(join(gitCommonDir, 'refs', 'heads', 'taskloom', runId))),
    ...(await removeLocksUnder(join(gitCommonDir, 'refs', 'taskloom', runId))),
  ];
}

/**
 * The same for every lock in the git directories of the run's worktrees (`<common dir>/worktrees/<name>/`
 * for a worktree inside `runWorktreeDir`): a git killed mid-merge leaves `index.lock`, but also
 * `HEAD.lock`, `ORIG_HEAD.lock` or a per-worktree ref's lock, and any one of them fails every later
 * merge there. At the start of a drive no git of Taskloom's runs in these worktrees, however young a
 * lock is (a resume right after a kill finds it seconds old). Returns the locks removed.
 */
export async function clearRunWorktreeLocks(gitCommonDir: string, runWorktreeDir: string): Promise<string[]> {
  const removed: string[] = [];
  const admin = join(gitCommonDir, 'worktrees');
  const names = await readdir(admin).catch(() => [] as string[]);
  for (const name of names) {
    const gitdir = await readFile(join(admin, name, 'gitdir'), 'utf8').catch(() => '');
    if (!resolve(gitdir.trim()).startsWith(resolve(runWorktreeDir) + '/')) continue;
    removed.push(...(await removeLocksUnder(join(admin, name))));
  }
  return removed;
}

async function removeLocksUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removed.push(...(await removeLocksUnder(path)));
    else if (entry.name.endsWith('.lock')) {
      await rm(path, { force: true });
      removed.push(path);
    }
  }
  return removed;
}
