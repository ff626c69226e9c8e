import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * Where a gate runs inside its checkout, to name files the same way in every checkout of the
 * repository: a test's id holds its path from the top of the repository, never the checkout's
 * own folder (a task's worktree, the baseline's, the user's).
 */
export interface CheckoutPaths {
  cwd: string;
  /** The top of the repository (the nearest folder holding `.git`), or cwd outside one. */
  top: string;
  /** A path a runner reported (absolute, or relative to `from`, default cwd) as a repository-relative path; undefined outside the checkout. */
  fromRunner(path: string, from?: string): string | undefined;
  /** A repository-relative path as the runner is given it: relative to cwd. */
  forRunner(repoPath: string): string;
}

export function checkoutPaths(cwd: string): CheckoutPaths {
  const top = repositoryTop(cwd);
  const tops = [top, realpathOr(top)];
  return {
    cwd,
    top,
    fromRunner(path, from = cwd) {
      const absolute = resolve(from, path);
      for (const base of tops) {
        const inside = relative(base, absolute);
        if (inside === '') return '.';
        if (!inside.startsWith('..') && !isAbsolute(inside)) return toPosix(inside);
      }
      return undefined;
    },
    forRunner: (repoPath) => toPosix(relative(cwd, join(top, repoPath))) || '.',
  };
}

function repositoryTop(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const toPosix = (path: string): string => path.split(sep).join('/');
