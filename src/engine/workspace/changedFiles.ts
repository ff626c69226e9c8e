import type { Git } from './git';
import { splitNul } from './gitQueries';

/** A file that differs between two commits, in git's letters (a copy counts as added, a type change as modified). */
export interface ChangedFile {
  path: string;
  status: 'A' | 'M' | 'D' | 'R';
  /** The path before a rename. */
  oldPath?: string;
}

/** `git diff --name-status -M base head`, renames found. */
export async function changedFilesBetween(git: Git, base: string, head: string): Promise<ChangedFile[]> {
  const { stdout } = await git.run(['diff', '--name-status', '-z', '-M', '--no-color', '--no-ext-diff', base, head, '--']);
  return parseNameStatus(stdout);
}

/** Parses `--name-status -z`: a status field, then one path (two for renames and copies). */
export function parseNameStatus(out: string): ChangedFile[] {
  const fields = splitNul(out);
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const letter = fields[i]![0];
    if (letter === 'R' || letter === 'C') {
      const oldPath = fields[++i]!;
      const path = fields[++i]!;
      files.push(letter === 'R' ? { path, status: 'R', oldPath } : { path, status: 'A' });
    } else {
      const path = fields[++i]!;
      files.push({ path, status: letter === 'A' || letter === 'D' ? letter : 'M' });
    }
  }
  return files;
}
