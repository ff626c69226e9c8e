import { changedLifecycleScripts, isPackageManifest, sensitivePattern, type SensitiveChange } from '../domain/sensitivePaths';
import { changedFilesBetween } from './changedFiles';
import type { Git } from './git';

/**
 * The files changed between two commits that need a human (domain/sensitivePaths.ts): a path a
 * pattern matches (a rename counts by either name), or a package.json whose lifecycle scripts
 * differ (its other fields, dependencies included, do not count).
 */
export async function sensitiveChangesBetween(git: Git, base: string, head: string, patterns: readonly string[]): Promise<SensitiveChange[]> {
  const changes: SensitiveChange[] = [];
  for (const file of await changedFilesBetween(git, base, head)) {
    const pattern = sensitivePattern(file.path, patterns) ?? (file.oldPath ? sensitivePattern(file.oldPath, patterns) : undefined);
    if (pattern) {
      changes.push({ path: file.path, pattern });
      continue;
    }
    const was = file.oldPath ?? file.path;
    if (!isPackageManifest(was) && !isPackageManifest(file.path)) continue;
    // A manifest renamed away from (or into) its name stops (or starts) being read by npm.
    const before = file.status !== 'A' && isPackageManifest(was) ? await blobText(git, base, was) : null;
    const after = file.status !== 'D' && isPackageManifest(file.path) ? await blobText(git, head, file.path) : null;
    const scripts = changedLifecycleScripts(before, after);
    if (scripts.length) changes.push({ path: file.path, scripts });
  }
  return changes;
}

async function blobText(git: Git, commit: string, path: string): Promise<string | null> {
  const { stdout, exitCode } = await git.run(['cat-file', 'blob', `${commit}:${path}`], { accept: [0, 128] });
  return exitCode === 0 ? stdout : null;
}
