// The import graph of a source folder, read with TypeScript's parser: which file imports which
// (relative imports and re-exports inside the folder), and whether an import brings types only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  to: string;
  /** `import type …`, or every name imported `type`: nothing of it is loaded when the program runs. */
  typeOnly: boolean;
}

/** By file (its path relative to the folder, with `/`), the files of the folder it imports. */
export type ImportGraph = Map<string, ImportEdge[]>;

export function importGraph(folder: string): ImportGraph {
  const root = resolve(folder);
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).sort();
  const name = (path: string) => relative(root, path).split('\\').join('/');
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const path = join(root, file);
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, false);
    const edges: ImportEdge[] = [];
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
      const target = resolve(dirname(path), specifier.text);
      const resolved = existsSync(`${target}.ts`) ? `${target}.ts` : join(target, 'index.ts');
      if (!resolved.startsWith(root + '/')) continue;
      edges.push({ to: name(resolved), typeOnly: ts.isImportDeclaration(statement) ? typeOnlyImport(statement.importClause) : statement.isTypeOnly });
    }
    graph.set(name(path), edges);
  }
  return graph;
}

function typeOnlyImport(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const names = clause.namedBindings;
  return !clause.name && names !== undefined && ts.isNamedImports(names) && names.elements.length > 0 && names.elements.every((element) => element.isTypeOnly);
}

/** The groups of files that import each other, directly or around a loop (strongly connected components of two or more, or a file importing itself). */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    const selfImport = (graph.get(file) ?? []).some((edge) => edge.to === file);
    if (group.length > 1 || selfImport) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
