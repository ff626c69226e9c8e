import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { affectedTestFiles } from '../src/engine/gate/affected/affectedTestFiles';
import type { Section } from './report';
import { median, ms, ratio, timeAsync } from './stats';

const SIZES = [1_000, 5_000];
const RUNS = 5;
const PER_LAYER = 50;

/**
 * A generated TypeScript repository of `modules` source files in layers of 50: each module
 * imports two of the layer below by their `.js` names (every tenth through the layer's index
 * file), so the graph is `modules / 50` layers deep; one node:test test per ten modules.
 */
function writeLayeredRepo(dir: string, modules: number): string[] {
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', JSON.stringify({ name: 'layered', type: 'module' }));
  for (let i = 0; i < modules; i++) {
    const layer = Math.floor(i / PER_LAYER);
    const below = layer === 0 ? [] : [((i * 7) % PER_LAYER) + (layer - 1) * PER_LAYER, ((i * 13 + 1) % PER_LAYER) + (layer - 1) * PER_LAYER];
    const imports = below.map((j, k) => `import { m${j} } from '../layer${layer - 1}/${k === 0 && i % 10 === 0 ? 'index' : `m${j}`}.js';`);
    write(`src/layer${layer}/m${i}.ts`, `${imports.join('\n')}\nexport const m${i} = (): number => ${below.length ? below.map((j) => `m${j}()`).join(' + ') : '1'};\n`);
  }
  for (let layer = 0; layer * PER_LAYER < modules; layer++) {
    const members = Array.from({ length: Math.min(PER_LAYER, modules - layer * PER_LAYER) }, (_, k) => layer * PER_LAYER + k);
    write(`src/layer${layer}/index.ts`, `${members.map((i) => `export * from './m${i}.js';`).join('\n')}\n`);
  }
  const tests: string[] = [];
  for (let i = 0; i < modules; i += 10) {
    tests.push(`test/m${i}.test.ts`);
    write(tests.at(-1)!, `import { test } from 'node:test';\nimport { m${i} } from '../src/layer${Math.floor(i / PER_LAYER)}/m${i}.js';\n\ntest('m${i}', () => { m${i}(); });\n`);
  }
  return tests;
}

/** The baseline: reading every file of the repository once, as the graph must, without lexing or resolving. */
async function readEveryFile(dir: string): Promise<void> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  for (let i = 0; i < files.length; i += 32) await Promise.all(files.slice(i, i + 32).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
}

/** Section 11: what the import graph of an affected-only gate costs on repositories of 1,000 and 5,000 modules. */
export async function benchAffectedGraph(): Promise<Section> {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const modules of SIZES) {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-graph-')));
    try {
      const tests = writeLayeredRepo(dir, modules);
      const selectedFor = async (change: string) => {
        const selection = await affectedTestFiles(dir, tests, [change]);
        if (selection.kind !== 'files') throw new Error(`the generated repository ran the full suite: ${selection.why}`);
        return selection.testFiles.length;
      };
      const top = `src/layer${modules / PER_LAYER - 1}/m${modules - PER_LAYER}.ts`;
      let selected = 0;
      const select = async () => {
        selected = await selectedFor('src/layer0/m0.ts');
      };
      const cold = await timeAsync(select);
      const selectedByTop = await selectedFor(top);
      const warms: number[] = [];
      const reads: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        warms.push(await timeAsync(select));
        reads.push(await timeAsync(() => readEveryFile(dir)));
      }
      const [warm, readAll] = [median(warms), median(reads)];
      rows.push([modules.toLocaleString('en'), String(tests.length), String(modules / PER_LAYER), ms(cold), ms(warm), ms(readAll), ratio(warm / readAll), `${selected} / ${selectedByTop}`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  notes.push('The graph is read whole for every selection (nothing is cached between task gates): the time is that of one task gate\'s selection, before its tests start.');
  return {
    title: '11. Affected-only gates: the import graph',
    method: `affectedTestFiles on generated TypeScript repositories (layers of ${PER_LAYER} modules, each importing two of the layer below by their \`.js\` names, every tenth through an index file; one test per ten modules), for a change to a module of the bottom layer (which nearly every test reaches) and one of the top layer (only its own test). Cold is the first call in the process (es-module-lexer's WebAssembly compiled); warm the median of ${RUNS}. Baseline: reading every file of the repository once (the median of ${RUNS}), without lexing or resolving.`,
    tables: [{ headers: ['modules', 'tests', 'depth', 'cold', 'warm', 'read every file', 'warm / read', 'tests selected (bottom / top change)'], rows, numeric: [0, 1, 2, 3, 4, 5, 6] }],
    notes,
  };
}
