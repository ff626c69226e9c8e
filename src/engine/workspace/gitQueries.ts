import type { StatusResult } from 'simple-git';
import type { Git } from './git';

// Questions to git, answered by its exit code where git gives one.

/** The full hash `ref` points to, or null when it does not name a commit (`rev-parse --verify --quiet` exits 1). */
export async function resolveCommit(git: Git, ref: string): Promise<string | null> {
  const { exitCode, stdout } = await git.run(['rev-parse', '--quiet', '--verify', `${ref}^{commit}`], { accept: [0, 1] });
  return exitCode === 0 ? stdout.trim() : null;
}

/** The commit checked out in the git's directory. */
export async function headCommitOf(git: Git): Promise<string> {
  return (await git.run(['rev-parse', 'HEAD'])).stdout.trim();
}

/** True when `commit` is `descendant` or one of its ancestors: merging it would change nothing. */
export async function isAncestor(git: Git, commit: string, descendant: string): Promise<boolean> {
  const { exitCode } = await git.run(['merge-base', '--is-ancestor', commit, descendant], { accept: [0, 1] });
  return exitCode === 0;
}

/** True when the index differs from HEAD: a commit would record something. */
export async function hasStagedChanges(git: Git): Promise<boolean> {
  const { exitCode } = await git.run(['diff', '--cached', '--quiet', '--no-ext-diff'], { accept: [0, 1] });
  return exitCode === 1;
}

/** Paths left unmerged by a conflicted merge, read from the index rather than parsed from messages. */
export async function unmergedFiles(git: Git): Promise<string[]> {
  const { stdout } = await git.run(['diff', '--name-only', '--diff-filter=U', '-z']);
  return [...new Set(splitNul(stdout))];
}

/** `git status`, parsed by simple-git; an untracked folder is one entry, as git shows it by default. */
export async function statusOf(git: Git): Promise<StatusResult> {
  return (await git.typed()).status(['--untracked-files=normal']);
}

/** Changed, staged and untracked paths (the new name of a rename). */
export async function uncommittedPaths(git: Git): Promise<string[]> {
  return (await statusOf(git)).files.map((file) => file.path);
}

/** The refs matching `pattern` (whole path components: `refs/heads/taskloom/r1` never matches `…/r10`). */
export async function refsUnder(git: Git, pattern: string): Promise<string[]> {
  const { stdout } = await git.run(['for-each-ref', '--format=%(refname)', pattern]);
  return stdout.split('\n').filter(Boolean);
}

export function splitNul(out: string): string[] {
  return out.split('\0').filter((s) => s.length > 0);
}
