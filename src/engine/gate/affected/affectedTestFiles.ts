import { join, posix } from 'node:path';
import { filesWhy, fullSuite, isModulePath, repoPath, type AffectedSelection } from './affectedSelection';
import { readImportGraph, type ImportGraph } from './importGraph';
import { ModuleResolver } from './moduleResolver';
import { readNodeWorkspaces } from './nodeWorkspaces';
import { readPackageManifest } from './packageManifest';
import { lookUpFile, realRepoRoot } from './repoFiles';

const LOCKFILE = /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?)$/;
/** Configuration of a runner, a compiler or the environment: it reaches every test without being imported. */
const CONFIG = /(^|\/)(\.mocharc[^/]*|[jt]sconfig[^/]*\.json|(jest|vitest|vite|mocha|babel|webpack|rollup|esbuild|tsup|playwright|karma|ava)\.config\.[cm]?[jt]s|\.env[^/]*|\.babelrc[^/]*|\.swcrc|\.[cn]ycrc[^/]*|\.npmrc|\.nvmrc|\.node-version)$/;

/**
 * node:test and mocha: which of `testFiles` a change to `changed` (repo-relative, from the task's
 * base to its HEAD, deleted files included) can affect, by the import graph. The full suite, with
 * its reason, whenever the graph cannot be trusted or a changed file is not one of its modules.
 */
export async function affectedTestFiles(repoDir: string, testFiles: string[], changed: string[]): Promise<AffectedSelection> {
  const root = realRepoRoot(repoDir);
  if (root === undefined) return fullSuite(`${repoDir} cannot be read`);
  const tests = new Map<string, string>();
  for (const file of testFiles) {
    const found = lookUpFile(root, join(root, repoPath(file)));
    if (found.kind === 'file') tests.set(found.path, repoPath(file));
  }
  const changedFiles = [...new Set(changed.map(repoPath))];
  const reachesEverything = changedFiles.map(everyModuleReason).find((why) => why !== undefined);
  if (reachesEverything) return fullSuite(reachesEverything);
  const graph = await readImportGraph(root, [...tests.keys()], new ModuleResolver(root, ownPackages(root)));
  if (graph.problem) return fullSuite(graph.problem);
  const starts: string[] = [];
  for (const file of changedFiles) {
    const placed = placeChange(root, graph, file);
    if ('why' in placed) return fullSuite(placed.why);
    starts.push(...placed.files);
  }
  const selected = [...importersOf(graph, starts)].flatMap((file) => tests.get(file) ?? []).sort();
  const testNames = new Set(tests.values());
  const changedTests = changedFiles.filter((file) => testNames.has(file)).length;
  return { kind: 'files', testFiles: selected, why: filesWhy(changedFiles, changedTests, selected.length, tests.size) };
}

/** The repository's own packages by name: the root's (a self-reference) and its npm/pnpm/yarn workspaces. */
export function ownPackages(root: string): Map<string, string> {
  const own = new Map<string, string>();
  const rootName = readPackageManifest(root, '')?.name;
  if (rootName) own.set(rootName, '');
  for (const pkg of readNodeWorkspaces(root)?.packages ?? []) own.set(pkg.name, pkg.dir);
  return own;
}

/** Why a changed file reaches every module without being imported (a manifest, a lockfile, a configuration), if it does. */
function everyModuleReason(file: string): string | undefined {
  if (posix.basename(file) === 'package.json') return `${file}: a package.json decides how every module loads`;
  if (LOCKFILE.test(file)) return `${file}: a lockfile changes the installed dependencies`;
  if (CONFIG.test(file)) return `${file}: a configuration of the runner, the compiler or the environment`;
  return undefined;
}

/** The files of the graph a changed file stands for, or why it cannot be placed. */
function placeChange(root: string, graph: ImportGraph, file: string): { files: string[] } | { why: string } {
  const found = lookUpFile(root, join(root, file));
  if (found.kind === 'outside') return { why: `${file} leads outside the repository` };
  if (found.kind === 'file') {
    if (graph.importedBy.has(found.path)) return { files: [found.path] };
    return { why: isModulePath(file) ? `${file}: no test file imports it (a test may still run it another way)` : `${file}: not a module of the import graph (data or a file the tests read)` };
  }
  // Deleted: the files that still import it by one of its names; a module nothing imports any more reaches no test.
  const importers = graph.missingImportedBy.get(file);
  if (importers) return { files: [...importers] };
  return isModulePath(file) ? { files: [] } : { why: `${file} was deleted, and the import graph cannot place it` };
}

/** The files that reach any of `starts` through the graph's imports, `starts` included. */
function importersOf(graph: ImportGraph, starts: readonly string[]): Set<string> {
  const reached = new Set(starts);
  const queue = [...starts];
  while (queue.length > 0) {
    for (const importer of graph.importedBy.get(queue.pop()!) ?? []) {
      if (!reached.has(importer)) {
        reached.add(importer);
        queue.push(importer);
      }
    }
  }
  return reached;
}
