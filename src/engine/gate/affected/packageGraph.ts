import type { WorkspaceLayout, WorkspacePackage } from './affectedSelection';

/** A package as its manifest was read: its dependencies by name, or `unknown` when the manifest cannot say. */
export interface ReadPackage extends WorkspacePackage {
  dependencies: readonly string[] | 'unknown';
}

/** The layout of `packages`, with each one's dependencies narrowed to the layout's own packages. */
export function layoutOf(tool: WorkspaceLayout['tool'], declaredIn: string | undefined, packages: readonly ReadPackage[]): WorkspaceLayout {
  const names = packages.map((pkg) => pkg.name);
  const dependsOn: Record<string, string[]> = {};
  for (const pkg of packages) {
    const dependencies = pkg.dependencies === 'unknown' ? names : pkg.dependencies.filter((name) => names.includes(name));
    dependsOn[pkg.name] = [...new Set(dependencies)].filter((name) => name !== pkg.name);
  }
  return { tool, ...(declaredIn ? { declaredIn } : {}), packages: packages.map(({ name, dir }) => ({ name, dir })), dependsOn };
}

/** Folders a workspace walk does not enter: installed dependencies, tools' caches, test data and hidden folders. */
export const isSkippedFolder = (name: string): boolean =>
  name.startsWith('.') || ['node_modules', '__pycache__', 'venv', 'site-packages', 'vendor', 'testdata', 'dist', 'build', 'target'].includes(name);
