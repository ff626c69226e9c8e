import { readdirSync } from 'node:fs';
import { importCycles, importGraph, type ImportGraph } from './importGraph';

/** Import statements from one engine folder into others: importer → imported folder → how many. */
export type FolderImports = Map<string, Map<string, number>>;

/** The engine's folders (src/engine/<folder>) and what each imports of the others, from the files' import graph. */
export function engineFolderImports(engineDir: string): FolderImports {
  const imports: FolderImports = new Map(engineFolders(engineDir).map((folder) => [folder, new Map<string, number>()]));
  const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : undefined);
  for (const [file, edges] of importGraph(engineDir)) {
    const folder = folderOf(file);
    if (!folder) continue;
    const counts = imports.get(folder)!;
    for (const { to } of edges) {
      const imported = folderOf(to);
      // A file of src/engine itself, or the folder's own files.
      if (imported && imported !== folder) counts.set(imported, (counts.get(imported) ?? 0) + 1);
    }
  }
  return imports;
}

export function engineFolders(engineDir: string): string[] {
  return readdirSync(engineDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The folders caught in import cycles: none when the folders can be ordered so every import goes down. */
export function foldersOnCycles(imports: FolderImports): string[] {
  const graph: ImportGraph = new Map([...imports].map(([folder, counts]) => [folder, [...counts.keys()].filter((f) => imports.has(f)).map((to) => ({ to, typeOnly: false }))]));
  return importCycles(graph).flat().sort();
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
