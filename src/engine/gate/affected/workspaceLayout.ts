import type { WorkspaceLayout } from './affectedSelection';
import { readGoWorkspaces } from './goWorkspaces';
import { readNodeWorkspaces } from './nodeWorkspaces';
import { readPythonWorkspaces } from './pythonWorkspaces';
import { realRepoRoot } from './repoFiles';

/**
 * npm/yarn `workspaces` in package.json, pnpm-workspace.yaml, several pyproject.toml / setup.py
 * (Python), several go.mod or a go.work (Go); undefined for a single-package repository, or one
 * whose manifests cannot be read.
 */
export function readWorkspaceLayout(repoDir: string): WorkspaceLayout | undefined {
  const root = realRepoRoot(repoDir);
  if (root === undefined) return undefined;
  const layout = readNodeWorkspaces(root) ?? readGoWorkspaces(root) ?? readPythonWorkspaces(root);
  return layout && layout.packages.length > 0 ? layout : undefined;
}
