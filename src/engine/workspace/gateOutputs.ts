import { realpathSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { Minimatch } from 'minimatch';

/** The outputs a user said a gate writes into the work (`taskloom.gate.keepOutputs`). */
export interface KeptOutputs {
  /** True when a pattern names this path or a folder holding it (from the checkout's root, `/`-separated). */
  matches(path: string): boolean;
  /** True when a path inside this folder could match: false lets the folder go whole, unread. */
  mayHoldMatches(folder: string): boolean;
}

/**
 * Glob patterns from the checkout's root, dotfiles included. As in .gitignore, a pattern that names
 * a folder (`coverage`, `coverage/`) names everything in it.
 */
export function keptOutputs(patterns: readonly string[]): KeptOutputs {
  const globs = patterns
    .map((p) => p.trim().replace(/^\.\//, '').replace(/\/+$/, ''))
    .filter(Boolean)
    .map((p) => new Minimatch(p, { dot: true }));
  const named = (path: string): boolean => globs.some((g) => g.match(path));
  const matches = (path: string): boolean => {
    const parts = path.split('/');
    return parts.some((_, i) => named(parts.slice(0, i + 1).join('/')));
  };
  return { matches, mayHoldMatches: (folder) => matches(folder) || globs.some((g) => g.match(folder, true)) };
}

/** What became of one entry a gate made. */
export interface EntryOutcome {
  /** The entry is gone. */
  removed: boolean;
  /** Files (or folders) in it that `keep` names, left where the gate wrote them. */
  kept: string[];
}

/**
 * Removes `entry` (a path git listed in the checkout `root`, a folder ending in `/`) but what `keep`
 * names in it. Links are removed, never followed; an entry whose folder resolves outside `root` (a
 * link the gate left on the way) is left alone: nothing outside the checkout is touched.
 */
export async function removeInside(root: string, entry: string, keep: KeptOutputs): Promise<EntryOutcome> {
  const path = entry.replace(/\/+$/, '');
  const absolute = join(root, path);
  if (!path || !isInside(root, absolute) || !isInside(root, realFolderOf(absolute))) return { removed: false, kept: [] };
  return removeUnkept(root, path, keep);
}

async function removeUnkept(root: string, path: string, keep: KeptOutputs): Promise<EntryOutcome> {
  const absolute = join(root, path);
  if (keep.matches(path)) return { removed: false, kept: [path] };
  const stat = await lstat(absolute).catch(() => null);
  if (!stat) return { removed: true, kept: [] };
  if (!stat.isDirectory() || !keep.mayHoldMatches(path)) {
    await rm(absolute, { recursive: true, force: true, maxRetries: 2 });
    return { removed: true, kept: [] };
  }
  const kept: string[] = [];
  for (const child of await readdir(absolute)) kept.push(...(await removeUnkept(root, `${path}/${child}`, keep)).kept);
  if (kept.length > 0) return { removed: false, kept };
  await rm(absolute, { recursive: true, force: true, maxRetries: 2 });
  return { removed: true, kept };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel);
}

/** The real path of the folder holding `path`; the folder itself when it is gone. */
function realFolderOf(path: string): string {
  try {
    return realpathSync(dirname(path));
  } catch {
    return dirname(path);
  }
}
