import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { WORKTREES_INSIDE } from '../domain/runSettings';


/**
 * The folder of one run's worktrees (its tasks', the integration's, a pull request's):
 *   inside (the default, and every run recorded without a root)  <repo>/.taskloom/worktrees/<run>
 *   under a root of the user's                                     <root>/<repo folder name>/<run>
 * The run's config records the root, so a resumed run finds the worktrees where it made them.
 */
export function runWorktreeDir(repoRoot: string, runId: string, root?: string): string {
  return root ? join(root, basename(repoRoot), runId) : join(repoRoot, '.taskloom', 'worktrees', runId);
}

/**
 * The absolute root a setting names (relative to the repository), or undefined for the default;
 * `problem` when it cannot hold worktrees. Inside the repository only `.taskloom/` can: anywhere
 * else there the worktrees would show as the user's untracked files, and in `.git/` Claude Code
 * refuses to write.
 */
export function resolveWorktreeRoot(value: string | undefined, repoRoot: string): { root?: string; problem?: string } {
  const text = value?.trim();
  if (!text || text === WORKTREES_INSIDE) return {};
  const root = resolve(repoRoot, text);
  const inRepo = relative(repoRoot, root);
  const inside = inRepo === '' || !(inRepo === '..' || inRepo.startsWith(`..${sep}`) || isAbsolute(inRepo));
  if (!inside) return { root };
  if (inRepo === '.taskloom' || inRepo === join('.taskloom', 'worktrees')) return {};
  return {
    problem: `${root} is inside the repository, where worktrees would show as your untracked files`,
  };
}
