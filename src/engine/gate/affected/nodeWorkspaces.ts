import { load } from 'js-yaml';
import { minimatch } from 'minimatch';
import * as z from 'zod';
import { readPackageManifest, type PackageManifest } from './packageManifest';
import { foldersHolding, readRepoFile } from './repoFiles';
import type { WorkspaceLayout } from './affectedSelection';
import { isSkippedFolder, layoutOf, type ReadPackage } from './packageGraph';

const pnpmWorkspaceSchema = z.object({ packages: z.array(z.string()) });

/** npm/yarn `workspaces` in the root package.json, or pnpm-workspace.yaml (which pnpm reads instead). */
export function readNodeWorkspaces(root: string): WorkspaceLayout | undefined {
  const rootManifest = readPackageManifest(root, '');
  const pnpmFile = readRepoFile(root, 'pnpm-workspace.yaml');
  if (pnpmFile !== undefined) {
    const patterns = pnpmPackagePatterns(pnpmFile);
    return patterns && layoutOf('pnpm', 'pnpm-workspace.yaml', workspacePackages(root, patterns));
  }
  if (!rootManifest?.workspaces) return undefined;
  return layoutOf(usesYarn(root, rootManifest) ? 'yarn' : 'npm', 'package.json', workspacePackages(root, rootManifest.workspaces));
}

function pnpmPackagePatterns(text: string): string[] | undefined {
  try {
    const parsed = pnpmWorkspaceSchema.safeParse(load(text));
    return parsed.success ? parsed.data.packages : undefined;
  } catch {
    return undefined;
  }
}

const usesYarn = (root: string, manifest: PackageManifest): boolean =>
  manifest.packageManager?.startsWith('yarn@') ?? (readRepoFile(root, 'yarn.lock') !== undefined && readRepoFile(root, 'package-lock.json') === undefined);

/** The named packages in the folders the patterns match (`packages/*`, `!packages/legacy`); the root is never one of them. */
function workspacePackages(root: string, patterns: readonly string[]): ReadPackage[] {
  const clean = (pattern: string) => pattern.replace(/^!/, '').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  const included = patterns.filter((p) => !p.startsWith('!')).map(clean);
  const excluded = patterns.filter((p) => p.startsWith('!')).map(clean);
  const packages: ReadPackage[] = [];
  for (const dir of foldersHolding(root, ['package.json'], { maxDepth: 8, skip: isSkippedFolder }).keys()) {
    if (dir === '' || !included.some((p) => minimatch(dir, p)) || excluded.some((p) => minimatch(dir, p))) continue;
    const manifest = readPackageManifest(root, dir);
    if (manifest?.name) packages.push({ name: manifest.name, dir, dependencies: manifest.dependencyNames });
  }
  return packages.sort((a, b) => a.dir.localeCompare(b.dir));
}
