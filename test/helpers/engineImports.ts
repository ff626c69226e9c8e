import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Import statements from one engine folder into others: importer → imported folder → how many. */
export type FolderImports = Map<string, Map<string, number>>;

/** A relative specifier in `import … from '…'`, `export … from '…'`, `import '…'` or `import('…')`. */
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']*)'/g;

/** The engine's folders (src/engine/<folder>) and what each imports of the others, read from the files themselves. */
export function engineFolderImports(engineDir: string): FolderImports {
  const imports: FolderImports = new Map();
  for (const folder of engineFolders(engineDir)) {
    const counts = new Map<string, number>();
    imports.set(folder, counts);
    for (const file of typeScriptFiles(join(engineDir, folder))) {
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
        const target = relative(engineDir, resolve(dirname(file), specifier!)).split(sep);
        // Outside the engine (the protocol), or a file of src/engine itself.
        if (target[0] === '..' || target.length < 2) continue;
        const imported = target[0]!;
        if (imported !== folder) counts.set(imported, (counts.get(imported) ?? 0) + 1);
      }
    }
  }
  return imports;
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

export function engineFolders(engineDir: string): string[] {
  return readdirSync(engineDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The folders caught in import cycles: none when the folders can be ordered so every import goes
 * down. Peels off, again and again, the folders that import none of those left and those none of
 * those left import; what remains lies on a cycle (or on a path between two).
 */
export function foldersOnCycles(imports: FolderImports): string[] {
  const left = new Map([...imports].map(([folder, counts]) => [folder, [...counts.keys()].filter((f) => imports.has(f))]));
  for (let peeled = true; peeled; ) {
    peeled = false;
    for (const [folder, imported] of left) {
      const importsLeft = imported.some((f) => left.has(f));
      const importedByLeft = [...left.values()].some((others) => others.includes(folder));
      if (importsLeft && importedByLeft) continue;
      left.delete(folder);
      peeled = true;
    }
  }
  return [...left.keys()].sort();
}

/** One line per folder, in `order` (bottom first): what it imports and how many times, e.g. `queue → gate 1, plan 1, session 3`. */
export function drawFolderImports(imports: FolderImports, order: readonly string[]): string[] {
  const width = Math.max(...order.map((f) => f.length));
  return order
    .filter((folder) => imports.has(folder))
    .map((folder) => {
      const counts = [...imports.get(folder)!].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
      return `${folder.padEnd(width)} → ${counts.map(([f, n]) => `${f} ${n}`).join(', ') || '(nothing in the engine)'}`;
    });
}
