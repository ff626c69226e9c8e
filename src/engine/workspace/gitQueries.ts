import type { SimpleGit } from 'simple-git';

// simple-git treats a non-zero exit with nothing on stderr as success, so yes/no questions to git
// are asked through commands whose *output* carries the answer, never through their exit code.

/** The full hash `ref` points to, or null when it does not name a commit. */
export async function resolveCommit(git: SimpleGit, ref: string): Promise<string | null> {
  const out = (await git.raw(['rev-parse', '-q', '--verify', `${ref}^{commit}`])).trim();
  return out || null;
}

/** True when `commit` is `descendant` or one of its ancestors: merging it would change nothing. */
export async function isAncestor(git: SimpleGit, commit: string, descendant: string): Promise<boolean> {
  const notInDescendant = await git.raw(['rev-list', '-n', '1', commit, `^${descendant}`, '--']);
  return notInDescendant.trim() === '';
}

/** Paths left unmerged by a conflicted merge, read from the index rather than parsed from messages. */
export async function unmergedFiles(git: SimpleGit): Promise<string[]> {
  const out = await git.raw(['diff', '--name-only', '--diff-filter=U', '-z']);
  return [...new Set(splitNul(out))];
}

export interface StatusSnapshot {
  /** `## …` header from `--branch`: says "No commits yet" in an empty repository. */
  header: string;
  /** Changed, staged and untracked paths (new name for renames). */
  paths: string[];
}

/** `git status --porcelain -z --branch`; the header also keeps a clean status from printing nothing. */
export async function statusSnapshot(git: SimpleGit): Promise<StatusSnapshot> {
  const fields = splitNul(await git.raw(['status', '--porcelain=v1', '-z', '--branch']));
  const header = fields[0]?.startsWith('## ') ? fields.shift()! : '';
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    paths.push(entry.slice(3));
    // A rename or copy is followed by a field with its original path.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return { header, paths };
}

export function splitNul(out: string): string[] {
  return out.split('\0').filter((s) => s.length > 0);
}
