import { join } from 'node:path';
import { counted } from '../../text/counted';
import { repoPath } from './affectedSelection';
import { ownPackages } from './affectedTestFiles';
import { readImportGraph } from './importGraph';
import { ModuleResolver } from './moduleResolver';
import { lookUpFile, realRepoRoot } from './repoFiles';
import { readWorkspaceLayout } from './workspaceLayout';

/**
 * One line for `doctor`: how a task gate can narrow its tests in this repository ("workspaces
 * (npm): 6 packages; import graph: 212 ES modules, 48 test files", "import graph: src/a.js:3
 * calls require(); CommonJS modules: …: every task gate runs the full suite").
 */
export async function describeAffectedSupport(repoDir: string, testFiles?: string[]): Promise<string> {
  const root = realRepoRoot(repoDir);
  if (root === undefined) return `${repoDir} cannot be read: every task gate runs the full suite`;
  const layout = readWorkspaceLayout(root);
  const parts = layout ? [`workspaces (${layout.tool}): ${counted(layout.packages.length, 'package')}`] : [];
  if (testFiles && testFiles.length > 0) {
    const tests = testFiles.map((file) => lookUpFile(root, join(root, repoPath(file)))).flatMap((found) => (found.kind === 'file' ? [found.path] : []));
    const graph = await readImportGraph(root, tests, new ModuleResolver(root, ownPackages(root)));
    parts.push(graph.problem ? `import graph: ${graph.problem}: every task gate runs the full suite` : `import graph: ${counted(graph.moduleCount, 'ES module')}, ${counted(tests.length, 'test file')}`);
  }
  return parts.length > 0 ? parts.join('; ') : 'no workspaces, and no test files to follow imports from: every task gate runs the full suite';
}
