import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** The most of one file that is read (a module, a manifest): beyond it is a bundle or data, not source. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** The most folders a walk for manifests visits: a repository's packages are near its top. */
const MAX_WALKED_DIRS = 20_000;

/** The repository's real path (symlinks such as macOS /tmp resolved), or undefined when it cannot be read. */
export function realRepoRoot(repoDir: string): string | undefined {
  try {
    return realpathSync(repoDir);
  } catch {
    return undefined;
  }
}

/** `path` (absolute) as a repo-relative path with `/`, or undefined when it lies outside `root`. */
export function withinRepo(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** What a path names: a file of the repository (its real path, repo-relative), something outside it, or nothing. */
export type FileLookup = { kind: 'file'; path: string } | { kind: 'outside' } | { kind: 'missing' };

/** Follows symlinks only to say where they lead: a file reached through one that leaves the repository is `outside`, never read. */
export function lookUpFile(root: string, path: string): FileLookup {
  let real: string;
  try {
    // stat first: most names tried are not there, and a missing one costs no exception this way.
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return { kind: 'missing' };
    real = realpathSync.native(path);
  } catch {
    return { kind: 'missing' };
  }
  const inRepo = withinRepo(root, real);
  return inRepo === undefined ? { kind: 'outside' } : { kind: 'file', path: inRepo };
}

/** A repository file's text (a manifest), or undefined when it is missing, outside the repository or too large. */
export function readRepoFile(root: string, repoRelative: string): string | undefined {
  const found = lookUpFile(root, join(root, repoRelative));
  if (found.kind !== 'file') return undefined;
  try {
    const path = join(root, found.path);
    return statSync(path).size > MAX_FILE_BYTES ? undefined : readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A module's source for the import graph, or why it cannot be read. */
export async function readModuleSource(root: string, repoRelative: string): Promise<{ text: string } | { problem: string }> {
  const path = join(root, repoRelative);
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return { problem: `${repoRelative} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB` };
    return { text: await readFile(path, 'utf8') };
  } catch {
    return { problem: `${repoRelative} cannot be read` };
  }
}

/**
 * The repository's folders (repo-relative, '' for its root) that hold one of `markers`, with the
 * ones they hold. Symlinked folders are not entered, so the walk never leaves the repository.
 */
export function foldersHolding(root: string, markers: readonly string[], options: { maxDepth: number; skip: (name: string) => boolean }): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const queue: Array<{ dir: string; depth: number }> = [{ dir: '', depth: 0 }];
  for (let next = 0; next < queue.length && next < MAX_WALKED_DIRS; next++) {
    const { dir, depth } = queue[next]!;
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    const held = new Set(entries.filter((e) => e.isFile() && markers.includes(e.name)).map((e) => e.name));
    if (held.size > 0) found.set(dir, held);
    if (depth >= options.maxDepth) continue;
    for (const entry of entries) {
      if (entry.isDirectory() && !options.skip(entry.name)) queue.push({ dir: dir ? `${dir}/${entry.name}` : entry.name, depth: depth + 1 });
    }
  }
  return found;
}
