import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from './git';
import { forgetTaskBase, readCommitMarker, worktreeGitDir } from './worktreeFiles';
import { isDirectory, listWorktrees, samePath } from './worktreeOps';

// A merged task's worktree is not thrown away: it is parked in the run's pool and the next task
// that starts takes it, checked out at its own start commit. A checkout then writes only the files
// that differ between the two commits, and the setup's outputs (ignored files: node_modules, .venv)
// stay, so preparing costs what changed rather than what the repository weighs.

/** `<run dir>/@pool/<n>`: outside the task folders, so nothing takes a parked worktree for a task's. */
export const POOL_NAME = '@pool';

/**
 * Files whose change means the setup's outputs are stale: the usual lockfiles and manifests. A
 * recycled worktree whose start commit changes none of them keeps what its setup made.
 */
export const SETUP_INPUTS = [
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'requirements*.txt',
  'pyproject.toml',
  'poetry.lock',
  'uv.lock',
  'Pipfile.lock',
  'Cargo.lock',
  'go.sum',
  'Gemfile.lock',
  'composer.lock',
  '.worktreeinclude',
];

export function poolDir(runDir: string): string {
  return join(runDir, POOL_NAME);
}

/** Parked worktrees of the run, oldest slot first. */
export function parkedWorktrees(runDir: string): string[] {
  const dir = poolDir(runDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^\d+$/.test(n))
    .sort((a, b) => Number(a) - Number(b))
    .map((n) => join(dir, n));
}

/**
 * Moves a merged task's worktree into the pool, detached (its branch, which holds merged work,
 * stays as it is and is free to be checked out elsewhere). The task's recorded base goes, so a
 * crash between here and the next task's checkout can never make the parked worktree look like
 * that task's finished preparation. Returns the parked path.
 */
export async function parkWorktree(git: Git, wt: Git, path: string, runDir: string): Promise<string> {
  await wt.run(['checkout', '-q', '--detach']);
  await forgetTaskBase(path);
  const dir = poolDir(runDir);
  await mkdir(dir, { recursive: true });
  const taken = new Set(readdirSync(dir));
  let slot = 0;
  while (taken.has(String(slot))) slot++;
  const parked = join(dir, String(slot));
  await git.run(['worktree', 'move', path, parked]);
  return parked;
}

/**
 * Takes a parked worktree for a task: moves it to the task's path and checks the task's branch out
 * there at `startCommit` (`--force`: whatever the parked one had is dropped). The caller cleans it
 * (cleanRecycled) once it knows whether the setup's outputs are still good.
 */
export async function takeParkedWorktree(git: Git, wt: Git, parked: string, branch: string, startCommit: string): Promise<void> {
  await git.run(['worktree', 'move', parked, wt.dir]);
  await wt.run(['checkout', '-q', '--force', '--no-recurse-submodules', '-B', branch, startCommit]);
}

/**
 * Removes untracked files. Ignored ones (dependencies, virtualenvs, build caches) stay while the
 * setup that made them is still good; when its inputs changed they go too, and the setup runs
 * again in a checkout as clean as a new one.
 */
export async function cleanRecycled(wt: Git, keepIgnored: boolean): Promise<void> {
  await wt.run(['clean', keepIgnored ? '-fdq' : '-fdxq']);
}

/** Whether any setup input differs between two commits (unknown commits count as changed). */
export async function setupInputsChanged(git: Git, from: string, to: string, inputs: readonly string[] = SETUP_INPUTS): Promise<boolean> {
  if (from === to) return false;
  const pathspecs = inputs.map((p) => `:(glob)**/${p}`);
  try {
    // --quiet: exit 1 when they differ.
    const { exitCode } = await git.run(['diff', '--quiet', '--no-ext-diff', '--no-renames', from, to, '--', ...pathspecs], { accept: [0, 1] });
    return exitCode === 1;
  } catch {
    return true;
  }
}

/** Removes every parked worktree (at the end of a run). Returns how many. */
export async function drainParkedWorktrees(git: Git, runDir: string): Promise<number> {
  const parked = parkedWorktrees(runDir);
  const registered = parked.length ? await listWorktrees(git) : [];
  for (const path of parked) {
    if (registered.some((e) => samePath(e.path, path)) && isDirectory(path)) {
      await git.run(['worktree', 'remove', '--force', '--force', path]).catch(() => undefined);
    }
    await rm(path, { recursive: true, force: true });
  }
  await rm(poolDir(runDir), { recursive: true, force: true });
  if (parked.length) await git.run(['worktree', 'prune']);
  return parked.length;
}

/** In a worktree's git directory: the commit its setup last ran on (absent: unknown, so it runs again). */
const SETUP_BASE_FILE = 'taskloom-setup-base';

export async function recordSetupBase(path: string, commit: string): Promise<void> {
  await writeFile(join(worktreeGitDir(path), SETUP_BASE_FILE), `${commit}\n`);
}

export async function readSetupBase(path: string): Promise<string | null> {
  return readCommitMarker(join(worktreeGitDir(path), SETUP_BASE_FILE));
}
