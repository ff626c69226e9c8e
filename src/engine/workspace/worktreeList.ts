/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  path: string;
  /** Commit checked out; empty for a bare main repository. */
  head: string;
  /** Short branch name (`taskloom/r1/a`), or null when detached or bare. */
  branch: string | null;
  bare: boolean;
  locked: boolean;
  /** Registered, but git found its directory missing: `worktree prune` will drop it. */
  prunable: boolean;
}

/** Parses the porcelain format: blank-line separated blocks of `key [value]` lines. */
export function parseWorktreeList(porcelain: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  for (const block of porcelain.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.length > 0);
    if (!lines[0]?.startsWith('worktree ')) continue;
    const entry: WorktreeEntry = { path: '', head: '', branch: null, bare: false, locked: false, prunable: false };
    for (const line of lines) {
      const space = line.indexOf(' ');
      const key = space < 0 ? line : line.slice(0, space);
      const value = space < 0 ? '' : line.slice(space + 1);
      if (key === 'worktree') entry.path = value;
      else if (key === 'HEAD') entry.head = value;
      else if (key === 'branch') entry.branch = value.replace(/^refs\/heads\//, '');
      else if (key === 'bare') entry.bare = true;
      else if (key === 'locked') entry.locked = true;
      else if (key === 'prunable') entry.prunable = true;
    }
    entries.push(entry);
  }
  return entries;
}
