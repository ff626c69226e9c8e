import { init, parse } from 'es-module-lexer';
import { oneLine } from '../../text/clip';
import { isModulePath } from './affectedSelection';
import type { ModuleResolver } from './moduleResolver';
import { readModuleSource } from './repoFiles';

/** The most files the graph holds: past it, the gate runs the full suite rather than spend the task's time reading. */
export const MAX_GRAPH_FILES = 20_000;
/** Files read at once: enough to keep the disk busy, few enough to hold little in memory. */
const READ_BATCH = 32;

/** `require(…)`, but not TypeScript's `import x = require(…)`, which es-module-lexer reads as an import. */
const REQUIRE_CALL = /(?<!\bimport\s+[\w$]+\s*=\s*)\brequire\s*\(/;
const COMMONJS_EXPORTS = /\bmodule\.exports\b|\bexports\.[\w$]+\s*=/;

/** Which files import which, from the test files down, read with es-module-lexer (repo-relative real paths). */
export interface ImportGraph {
  /** Every file the test files reach (themselves included) → the files that import it. */
  importedBy: Map<string, Set<string>>;
  /** A name no file answers (a deleted module, under every name it could have had) → the files importing it. */
  missingImportedBy: Map<string, Set<string>>;
  /** JavaScript and TypeScript modules read. */
  moduleCount: number;
  /** The first reason the graph cannot be trusted (a CommonJS module, a computed import(), a parse error…): then it is not finished. */
  problem?: string;
}

/** Reads the graph from `testFiles` (existing, repo-relative real paths) through every import the resolver places. */
export async function readImportGraph(root: string, testFiles: readonly string[], resolver: ModuleResolver): Promise<ImportGraph> {
  await init();
  const graph: ImportGraph = { importedBy: new Map(testFiles.map((file) => [file, new Set<string>()])), missingImportedBy: new Map(), moduleCount: 0 };
  const queue = testFiles.filter(isModulePath);
  for (let next = 0; next < queue.length; ) {
    const batch = queue.slice(next, next + READ_BATCH);
    next += batch.length;
    const sources = await Promise.all(batch.map((file) => readModuleSource(root, file)));
    for (const [index, file] of batch.entries()) {
      const source = sources[index]!;
      const specifiers = 'text' in source ? importedNames(file, source.text) : source;
      if ('problem' in specifiers) return { ...graph, problem: specifiers.problem };
      graph.moduleCount++;
      for (const specifier of specifiers) {
        const resolved = resolver.resolve(file, specifier);
        if (resolved.kind === 'unplaceable') return { ...graph, problem: resolved.why };
        if (resolved.kind === 'missing') for (const name of resolved.names) addEdge(graph.missingImportedBy, name, file);
        if (resolved.kind !== 'files') continue;
        for (const imported of resolved.files) {
          if (!graph.importedBy.has(imported) && isModulePath(imported)) queue.push(imported);
          addEdge(graph.importedBy, imported, file);
        }
      }
      if (graph.importedBy.size > MAX_GRAPH_FILES) return { ...graph, problem: `more than ${MAX_GRAPH_FILES} files: the import graph stops there` };
    }
  }
  return graph;
}

/** The specifiers a module imports, or why the graph cannot place what it loads. */
function importedNames(file: string, source: string): string[] | { problem: string } {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source, file);
  } catch (error) {
    const at = typeof (error as { idx?: unknown }).idx === 'number' ? `:${lineAt(source, (error as { idx: number }).idx)}` : '';
    return { problem: `${file}${at}: es-module-lexer cannot read it (a syntax error, or JSX it does not lex)` };
  }
  const [imports, , , hasModuleSyntax] = parsed;
  const requireCall = REQUIRE_CALL.exec(source);
  if (requireCall || (!hasModuleSyntax && COMMONJS_EXPORTS.test(source))) {
    const at = requireCall ? `:${lineAt(source, requireCall.index)} calls require()` : ' is CommonJS';
    return { problem: `${file}${at}; CommonJS modules: the import graph cannot place them` };
  }
  const names: string[] = [];
  for (const entry of imports) {
    if (entry.type === 'import-meta') continue;
    if (entry.specifier === undefined || (entry.type === 'dynamic' && entry.glob)) {
      return { problem: `${file}:${lineAt(source, entry.start)}: import(${oneLine(source.slice(entry.start, entry.end), 40)}) loads a computed name` };
    }
    names.push(entry.specifier);
  }
  return names;
}

function addEdge(importedBy: Map<string, Set<string>>, imported: string, importer: string): void {
  const importers = importedBy.get(imported);
  if (importers) importers.add(importer);
  else importedBy.set(imported, new Set([importer]));
}

const lineAt = (source: string, index: number): number => source.slice(0, index).split('\n').length;
