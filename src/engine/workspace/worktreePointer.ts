import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { WorkspaceError } from './errors';

/**
 * Checks that `path` is still the linked worktree git made for the repository whose common git
 * directory is `commonDir`: its `.git` is a file (not a folder, not a link) saying
 * `gitdir: <commonDir>/worktrees/<name>`, and that record names this worktree back. An agent can
 * replace `.git` with a repository of its own (its own config, hooks and objects) or point it
 * elsewhere; Taskloom's git would then commit into, and run programs of, a repository that is not
 * the user's. Throws a WorkspaceError saying what is wrong.
 */
export function assertWorktreePointer(path: string, commonDir: string): void {
  const problem = pointerProblem(path, commonDir);
  if (problem) {
    throw new WorkspaceError(
      `The worktree ${path} is no longer the one Taskloom made: its .git ${problem}`,
      'Something in the task (its agent, a setup or gate command) changed it. Look at what the task did; discarding its worktree and retrying the task makes a new one.',
    );
  }
}

function pointerProblem(path: string, commonDir: string): string | null {
  const dotGit = join(path, '.git');
  let kind;
  try {
    kind = lstatSync(dotGit);
  } catch {
    return 'is missing';
  }
  if (!kind.isFile()) return kind.isDirectory() ? 'is a folder (a repository of its own), not the file git writes' : 'is not a plain file';
  const pointer = /^gitdir: (.+)\n?$/.exec(readFileSync(dotGit, 'utf8'));
  if (!pointer) return 'does not say "gitdir: <path>"';
  const record = resolve(path, pointer[1]!);
  if (canonical(dirname(record)) !== canonical(join(commonDir, 'worktrees'))) return `points to ${record}, outside ${join(commonDir, 'worktrees')}`;
  let backLink: string;
  try {
    backLink = readFileSync(join(record, 'gitdir'), 'utf8').trim();
  } catch {
    return `points to ${record}, which git does not know as a worktree`;
  }
  if (canonical(resolve(record, backLink)) !== canonical(dotGit)) return `points to ${record}, which is the record of ${dirname(backLink)}`;
  return null;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
