import { opendir, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { minimatch } from 'minimatch';
import type { CheckoutPaths } from './checkoutPaths';
import type { ShellWord } from './shellLine';

/** Files looked at at most to list a command's test files; a bigger tree is not listed (every test runs). */
const FILE_LIST_CAP = 200_000;
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** How a runner finds its test files from what it is given. */
export interface TestFileRules {
  /** Globs (relative to a folder it is given, or to cwd) of the test files in a folder. */
  inFolder: readonly string[];
  /** Whether a folder is searched below its first level. */
  recursive: boolean;
  /** Globs (relative to cwd) of files left out. */
  ignore?: readonly string[];
}

/**
 * The repository-relative test files that `specs` (a runner's positional words, or its
 * defaults) name, found as the runner finds them: a file is itself; a folder holds the files
 * `rules.inFolder` match; anything else is a glob, matched as the shell expands it when it was
 * written unquoted (no `**` across folders) and as the runner does otherwise. Undefined when the
 * tree is too big to list.
 */
export async function findTestFiles(specs: readonly ShellWord[], rules: TestFileRules, paths: CheckoutPaths): Promise<string[] | undefined> {
  const all = await listFiles(paths.cwd);
  if (!all) return undefined;
  const found = new Set<string>();
  for (const spec of specs) {
    for (const file of await filesOf(spec, rules, all, paths.cwd)) found.add(file);
  }
  const ignored = (file: string) => (rules.ignore ?? []).some((glob) => minimatch(file, posix.normalize(glob)));
  return [...found]
    .filter((file) => !ignored(file))
    .map((file) => paths.fromRunner(file))
    .filter((file): file is string => file !== undefined)
    .sort();
}

async function filesOf(spec: ShellWord, rules: TestFileRules, all: readonly string[], cwd: string): Promise<string[]> {
  const path = posix.normalize(spec.text).replace(/\/$/, '');
  const kind = await stat(join(cwd, path)).then((s) => (s.isDirectory() ? 'folder' : 'file'), () => 'glob');
  if (kind === 'file') return [path];
  if (kind === 'folder') {
    const under = path === '.' ? '' : `${path}/`;
    return all.filter((file) => {
      if (!file.startsWith(under)) return false;
      const inside = file.slice(under.length);
      // Node takes every file under a folder named `test` as a test, the folder given included.
      return (rules.recursive || !inside.includes('/')) && rules.inFolder.some((glob) => minimatch(inside, glob) || minimatch(file, glob));
    });
  }
  const expandedByShell = spec.raw === spec.text;
  return all.filter((file) => minimatch(file, path, { noglobstar: expandedByShell }));
}

/** Every file under `root`, relative to it, node_modules and .git left out, symlinks not followed; undefined past the cap. */
async function listFiles(root: string): Promise<string[] | undefined> {
  const files: string[] = [];
  const folders = [''];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    let dir;
    try {
      dir = await opendir(join(root, folder));
    } catch {
      continue;
    }
    for await (const entry of dir) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) folders.push(path);
      else if (entry.isFile()) files.push(path);
      if (files.length + folders.length > FILE_LIST_CAP) return undefined;
    }
  }
  return files;
}
