import { posix } from 'node:path';
import { minimatch } from 'minimatch';
import { normalisedName, readPythonProjects } from './pythonProjects';
import { foldersHolding } from './repoFiles';
import type { WorkspaceLayout } from './affectedSelection';
import { isSkippedFolder, layoutOf, type ReadPackage } from './packageGraph';

const MANIFESTS = ['pyproject.toml', 'setup.py', 'setup.cfg'];
/** Folders whose projects are test data (a fixture project), not packages of the repository. */
const TEST_DATA = new Set(['test', 'tests', 'fixtures', 'testdata', 'examples']);

/**
 * Several Python projects: a uv workspace's members, or else every outermost folder below the
 * root holding a pyproject.toml, setup.py or setup.cfg. A root that is itself a project makes one
 * package of the repository (what lies under it is its own), unless it declares a uv workspace.
 */
export function readPythonWorkspaces(root: string): WorkspaceLayout | undefined {
  const found = foldersHolding(root, MANIFESTS, { maxDepth: 4, skip: (name) => isSkippedFolder(name) || TEST_DATA.has(name) });
  const below = [...found.keys()].filter((dir) => dir !== '');
  if (below.length < 2) return undefined;
  const projects = readPythonProjects(root, [...found].filter(([, held]) => held.has('pyproject.toml')).map(([dir]) => dir));
  if (!projects) return undefined;
  const rootProject = projects.get('');
  const workspace = rootProject?.workspace;
  const rootIsPackage = rootProject?.name !== undefined || found.get('')?.has('setup.py') || found.get('')?.has('setup.cfg');
  if (!workspace && rootIsPackage) return undefined;
  const dirs = workspace
    ? below.filter((dir) => workspace.members.some((p) => minimatch(dir, p)) && !workspace.exclude.some((p) => minimatch(dir, p)))
    : outermost(below);
  if (dirs.length < 2) return undefined;
  const packages: ReadPackage[] = dirs.map((dir) => {
    const project = projects.get(dir);
    return { name: project?.name ?? normalisedName(posix.basename(dir)), dir, dependencies: project?.dependencies ?? 'unknown' };
  });
  // A package known only by its folder may be what another one names in its dependencies: every package depends on it.
  const unnamed = packages.filter((pkg) => projects.get(pkg.dir)?.name === undefined).map((pkg) => pkg.name);
  const withUnnamed = packages.map((pkg) => (pkg.dependencies === 'unknown' ? pkg : { ...pkg, dependencies: [...pkg.dependencies, ...unnamed] }));
  return layoutOf('python', workspace ? 'pyproject.toml' : undefined, withUnnamed);
}

/** The folders that lie inside no other of them: a package's own sub-projects belong to it. */
function outermost(dirs: readonly string[]): string[] {
  const sorted = [...dirs].sort();
  return sorted.filter((dir) => !sorted.some((other) => other !== dir && dir.startsWith(`${other}/`)));
}
