import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mappedTargets, splitBareSpecifier } from './packageEntries';
import { readPackageManifest, type PackageManifest } from './packageManifest';
import { lookUpFile, withinRepo, type FileLookup } from './repoFiles';

/** Where an import leads: files of the repository, outside it (a dependency), nowhere (a deleted module's name), or somewhere the graph cannot tell. */
export type Resolution =
  | { kind: 'files'; files: string[] }
  | { kind: 'external' }
  | { kind: 'missing'; names: string[] }
  | { kind: 'unplaceable'; why: string };

/** TypeScript's reading of a `.js` specifier: the source it was compiled from. */
const SOURCES_OF: Record<string, string[]> = { '.js': ['.ts', '.tsx', '.d.ts'], '.mjs': ['.mts', '.d.mts'], '.cjs': ['.cts', '.d.cts'], '.jsx': ['.tsx'] };
const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx', '.d.ts', '.json'];
const BUILTINS = new Set(builtinModules);
const EXTERNAL: Resolution = { kind: 'external' };

/**
 * Resolves the specifiers of a repository's own modules as Node and TypeScript would: relative
 * names with or without extension (`./x.js` naming `x.ts`), folders' index files, the
 * repository's own packages by name and `#` imports. A dependency's name is outside the graph;
 * a bare name that no package.json declares (a path alias) is unplaceable.
 */
export class ModuleResolver {
  private readonly lookups = new Map<string, FileLookup>();
  private readonly manifests = new Map<string, PackageManifest | undefined>();

  /** `ownPackages`: the repository's packages by name → their folder (repo-relative, '' for the root). */
  constructor(
    private readonly root: string,
    private readonly ownPackages: ReadonlyMap<string, string>,
  ) {}

  resolve(fromFile: string, specifier: string): Resolution {
    const fromDir = posix.dirname(fromFile);
    if (specifier.startsWith('#')) return this.packageImport(fromDir === '.' ? '' : fromDir, specifier);
    const name = specifier.replace(/\?.*$/, '');
    if (name === '.' || name === '..' || name.startsWith('./') || name.startsWith('../')) return this.resolvePath(posix.join(fromDir, name));
    if (name.startsWith('/') || name.startsWith('file:')) {
      const inside = withinRepo(this.root, name.startsWith('file:') ? fileURLToPath(name) : name);
      return inside === undefined ? EXTERNAL : this.resolvePath(inside);
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(name) || BUILTINS.has(name)) return EXTERNAL;
    const { name: packageName, subpath } = splitBareSpecifier(name);
    const ownDir = this.ownPackages.get(packageName);
    if (ownDir !== undefined) return this.packageEntry(packageName, ownDir, subpath);
    if (BUILTINS.has(packageName) || this.isDependency(fromDir, packageName)) return EXTERNAL;
    return { kind: 'unplaceable', why: `${fromFile} imports '${specifier}', which is neither a dependency nor a file of the repository (a path alias?)` };
  }

  private resolvePath(lexical: string): Resolution {
    const path = posix.normalize(lexical).replace(/\/$/, '');
    if (path === '..' || path.startsWith('../')) return EXTERNAL;
    const extension = posix.extname(path);
    const stem = path.slice(0, path.length - extension.length);
    const named = [path, ...(SOURCES_OF[extension] ?? []).map((source) => stem + source)];
    const found = this.existing(named);
    if (found !== 'none') return found;
    const withExtension = EXTENSIONS.map((e) => path + e);
    const first = this.firstExisting(withExtension);
    if (first) return first;
    const main = this.manifest(path)?.main;
    const fromMain = main && posix.normalize(posix.join(path, main)) !== path ? this.resolvePath(posix.join(path, main)) : undefined;
    if (fromMain && fromMain.kind !== 'missing') return fromMain;
    const indexes = EXTENSIONS.map((e) => posix.join(path, `index${e}`));
    return this.firstExisting(indexes) ?? { kind: 'missing', names: [...named, ...withExtension, ...indexes] };
  }

  /** Every one of `names` that exists (a `.js` file beside its `.ts` source: either may be what runs). */
  private existing(names: string[]): Resolution | 'none' {
    const files: string[] = [];
    for (const name of names) {
      const found = this.lookUp(name);
      if (found.kind === 'outside') return EXTERNAL;
      if (found.kind === 'file' && !files.includes(found.path)) files.push(found.path);
    }
    return files.length > 0 ? { kind: 'files', files } : 'none';
  }

  private firstExisting(names: string[]): Resolution | undefined {
    for (const name of names) {
      const found = this.lookUp(name);
      if (found.kind === 'outside') return EXTERNAL;
      if (found.kind === 'file') return { kind: 'files', files: [found.path] };
    }
    return undefined;
  }

  /** `@scope/pkg` or `@scope/pkg/sub` of the repository's own packages: its exports, else its main, else its index. */
  private packageEntry(packageName: string, dir: string, subpath: string): Resolution {
    const manifest = this.manifest(dir);
    const targets = manifest?.exports !== undefined ? mappedTargets(manifest.exports, subpath) : subpath !== '.' ? [subpath] : [manifest?.main, manifest?.module].filter((t) => t !== undefined);
    const specifier = subpath === '.' ? packageName : `${packageName}/${subpath.slice(2)}`;
    if (targets.length === 0 && manifest?.exports !== undefined) return { kind: 'unplaceable', why: `'${specifier}' is not among the exports of ${posix.join(dir, 'package.json')}` };
    return this.targetsIn(dir, targets.length > 0 ? targets : ['./index'], specifier);
  }

  /** `#name` through the `imports` of the package the importing file belongs to. */
  private packageImport(fromDir: string, specifier: string): Resolution {
    let dir = fromDir;
    while (this.manifest(dir) === undefined && dir !== '') dir = dir.includes('/') ? posix.dirname(dir) : '';
    const targets = mappedTargets(this.manifest(dir)?.imports, specifier);
    if (targets.length === 0) return { kind: 'unplaceable', why: `'${specifier}' is not among the imports of ${posix.join(dir, 'package.json')}` };
    if (targets.every((target) => !target.startsWith('./'))) return EXTERNAL;
    return this.targetsIn(dir, targets.filter((target) => target.startsWith('./')), specifier);
  }

  private targetsIn(dir: string, targets: string[], specifier: string): Resolution {
    const files = new Set<string>();
    for (const target of targets) {
      const resolved = this.resolvePath(posix.join(dir, target));
      if (resolved.kind === 'files') resolved.files.forEach((file) => files.add(file));
    }
    if (files.size > 0) return { kind: 'files', files: [...files] };
    return { kind: 'unplaceable', why: `'${specifier}' leads to ${posix.join(dir, targets[0]!)}, which is not a file of the repository (built output?)` };
  }

  /** Declared by a package.json from the importing folder up to the root, or installed in a node_modules on the way. */
  private isDependency(fromDir: string, packageName: string): boolean {
    for (let dir = fromDir === '.' ? '' : fromDir; ; dir = dir.includes('/') ? posix.dirname(dir) : '') {
      if (this.manifest(dir)?.dependencyNames.includes(packageName)) return true;
      if (existsSync(join(this.root, dir, 'node_modules', packageName))) return true;
      if (dir === '') return false;
    }
  }

  private lookUp(path: string): FileLookup {
    let found = this.lookups.get(path);
    if (!found) this.lookups.set(path, (found = lookUpFile(this.root, join(this.root, path))));
    return found;
  }

  private manifest(dir: string): PackageManifest | undefined {
    if (!this.manifests.has(dir)) this.manifests.set(dir, readPackageManifest(this.root, dir));
    return this.manifests.get(dir);
  }
}
