import { counted } from '../../text/counted';
import { changeName, fullSuite, repoPath, type AffectedSelection, type WorkspaceLayout, type WorkspacePackage } from './affectedSelection';

/**
 * The packages a change touches and every package that depends on them, transitively; the full
 * suite when a changed file lies in no package (a root config, a lockfile), where what it changes
 * reaches every package.
 */
export function affectedPackages(layout: WorkspaceLayout, changed: string[]): AffectedSelection {
  const files = [...new Set(changed.map(repoPath))];
  const touched = new Set<WorkspacePackage>();
  for (const file of files) {
    const owner = owningPackage(layout, file);
    if (!owner) return fullSuite(`${file} is in no package of the ${layout.tool} workspace (a root file): it may change every package`);
    touched.add(owner);
  }
  const selected = withDependents(layout, touched);
  const dependents = layout.packages.filter((pkg) => selected.has(pkg) && !touched.has(pkg));
  const names = (packages: Iterable<WorkspacePackage>) => [...packages].map((pkg) => pkg.name).join(', ');
  const why =
    files.length === 0
      ? 'no file changed: no package to test'
      : `${changeName(files)} changed ${names(touched)}${dependents.length ? `, which ${names(dependents)} ${dependents.length === 1 ? 'depends' : 'depend'} on` : ''}: ${selected.size} of ${counted(layout.packages.length, 'package')}`;
  return { kind: 'packages', packages: layout.packages.filter((pkg) => selected.has(pkg)), why };
}

/** The package whose folder holds the file, the innermost when packages nest; never the root's. */
function owningPackage(layout: WorkspaceLayout, file: string): WorkspacePackage | undefined {
  const holders = layout.packages.filter((pkg) => pkg.dir !== '' && file.startsWith(`${pkg.dir}/`));
  return holders.sort((a, b) => b.dir.length - a.dir.length)[0];
}

function withDependents(layout: WorkspaceLayout, touched: ReadonlySet<WorkspacePackage>): Set<WorkspacePackage> {
  const selected = new Set(touched);
  const byName = new Map(layout.packages.map((pkg) => [pkg.name, pkg]));
  const queue = [...touched];
  while (queue.length > 0) {
    const changedName = queue.pop()!.name;
    for (const [dependent, dependencies] of Object.entries(layout.dependsOn)) {
      const pkg = byName.get(dependent);
      if (pkg && !selected.has(pkg) && dependencies.includes(changedName)) {
        selected.add(pkg);
        queue.push(pkg);
      }
    }
  }
  return selected;
}
