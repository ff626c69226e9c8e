import { posix } from 'node:path';
import { foldersHolding, readRepoFile } from './repoFiles';
import type { WorkspaceLayout } from './affectedSelection';
import { isSkippedFolder, layoutOf, type ReadPackage } from './packageGraph';

/** The modules a go.work uses, or else the repository's go.mod files when there are several. */
export function readGoWorkspaces(root: string): WorkspaceLayout | undefined {
  const work = readRepoFile(root, 'go.work');
  const dirs =
    work !== undefined
      ? directiveArguments(work, 'use').map(moduleDir).filter((dir) => dir !== undefined)
      : [...foldersHolding(root, ['go.mod'], { maxDepth: 6, skip: isSkippedFolder }).keys()];
  if (work === undefined && dirs.length < 2) return undefined;
  const modules: ReadPackage[] = [];
  for (const dir of dirs) {
    const goMod = readRepoFile(root, posix.join(dir, 'go.mod'));
    const name = goMod && directiveArguments(goMod, 'module')[0];
    if (goMod && name) modules.push({ name, dir, dependencies: directiveArguments(goMod, 'require').map((requirement) => requirement.split(/\s+/)[0]!) });
  }
  return layoutOf('go', work !== undefined ? 'go.work' : undefined, modules);
}

/**
 * The arguments of a go.mod or go.work directive, one a line, from its one-line form
 * (`use ./api`) and its block form (`use (` … `)`), comments and quotes removed.
 */
function directiveArguments(text: string, keyword: string): string[] {
  const found: string[] = [];
  let inBlock = false;
  const blockStart = new RegExp(`^${keyword}\\s*\\($`);
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') inBlock = false;
      else if (line) found.push(unquote(line));
    } else if (blockStart.test(line)) {
      inBlock = true;
    } else if (line.startsWith(`${keyword} `) || line.startsWith(`${keyword}\t`)) {
      found.push(unquote(line.slice(keyword.length).trim()));
    }
  }
  return found;
}

const unquote = (text: string): string => text.replace(/^"(.*)"/, '$1').replace(/^`(.*)`/, '$1');

/** A `use` path as a repo-relative folder ('' for `.`), or undefined when it leaves the repository. */
function moduleDir(path: string): string | undefined {
  const normal = posix.normalize(path).replace(/\/$/, '');
  if (posix.isAbsolute(normal) || normal === '..' || normal.startsWith('../')) return undefined;
  return normal === '.' ? '' : normal;
}
