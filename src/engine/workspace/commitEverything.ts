import type { Git } from './git';
import { hasStagedChanges, splitNul } from './gitQueries';

export interface CommitMade {
  commit: string;
  /** The paths the commit touched, deletions included. */
  filesChanged: string[];
}

/**
 * Commits everything in the checkout (new, changed, deleted files; ignored ones excepted), or
 * returns null when there is nothing to commit. `--no-verify`: the user's hooks are for their
 * commits, not for agent snapshots.
 */
export async function commitEverything(wt: Git, message: string): Promise<CommitMade | null> {
  await wt.run(['add', '-A']);
  try {
    await wt.run(['commit', '--no-verify', '-q', '-m', message]);
  } catch (error) {
    // git refuses an empty commit with an exit code it shares with other refusals: the index says which it was.
    if (!(await hasStagedChanges(wt))) return null;
    throw error;
  }
  // `HASH\0\nfile\0file\0…`: the hash, then the paths the commit touched.
  const { stdout } = await wt.run(['log', '-1', '--format=%H', '--name-only', '--no-renames', '-z']);
  const [commit = '', ...files] = splitNul(stdout);
  return { commit: commit.trim(), filesChanged: files.map((f, i) => (i === 0 ? f.replace(/^\n/, '') : f)) };
}
