import { createHash } from 'node:crypto';

/**
 * The generated library of the gate bench (section 12): ES modules in layers, each with its own
 * node:test test, and tasks that each plant a regression one of those tests catches. Every module
 * `m<i>` computes `(its imports at x + 1, summed, + i) mod 10007`; its test checks its value at 0,
 * so a module's test calls what it imports at 1, what those import at 2, and so on down.
 */

export interface LibraryModule {
  name: string;
  layer: number;
  /** Repo-relative, as its test imports it. */
  path: string;
  test: string;
  /** Names of the modules it imports. */
  imports: string[];
}

export interface Library {
  /** Bottom layer first. */
  modules: LibraryModule[];
  files: Record<string, string>;
}

/** How far above the changed module the planted regression shows: in its own test, its importers' only, or only two layers up. */
export type Reach = 'own test' | 'importers' | 'two layers up';
const REACHES: readonly Reach[] = ['own test', 'importers', 'two layers up'];

export interface PlantedTask {
  id: string;
  /** Repo-relative path → new content: the broken module, and for every other task one more module, refactored without a change of behaviour. */
  writes: Record<string, string>;
  broken: LibraryModule;
  refactored?: LibraryModule;
  reach: Reach;
  /** The tests the regression fails (repo-relative files), as the library's own arithmetic says. */
  failingTests: string[];
}

const MOD = 10007;
/** The shared utilities at the bottom, imported by the whole first layer and now and then from higher up. */
const UTILITIES = 4;

/** A number from a label, the same on every machine: the generator's only source of choice. */
const pick = (label: string, below: number): number => createHash('sha256').update(label).digest().readUInt32BE(0) % below;

/** `modules` modules in `layers` layers: the shared utilities, then layers that grow towards the top (1 : 2 : … of the rest). */
export function generateLibrary(modules: number, layers: number): Library {
  const rest = modules - UTILITIES;
  const weights = Array.from({ length: layers - 1 }, (_, l) => l + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = [UTILITIES, ...weights.map((w) => Math.round((rest * w) / total))];
  sizes[layers - 1]! += modules - sizes.reduce((a, b) => a + b, 0);
  const byLayer: LibraryModule[][] = [];
  let next = 0;
  for (const [layer, size] of sizes.entries()) {
    byLayer.push(
      Array.from({ length: size }, () => {
        const name = `m${next++}`;
        const below = byLayer[layer - 1] ?? [];
        const imports = new Set<string>();
        const wanted = below.length === 0 ? 0 : 1 + pick(`${name}:count`, 3);
        for (let k = 0; imports.size < Math.min(wanted, below.length); k++) imports.add(below[pick(`${name}:import:${k}`, below.length)]!.name);
        if (layer >= 2 && pick(`${name}:utility`, 4) === 0) imports.add(byLayer[0]![pick(`${name}:which utility`, UTILITIES)]!.name);
        return { name, layer, path: `src/l${layer}/${name}.js`, test: `test/${name}.test.js`, imports: [...imports] };
      }),
    );
  }
  const list = byLayer.flat();
  const library: Library = { modules: list, files: {} };
  library.files['package.json'] = `${JSON.stringify({ name: 'layered-library', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`;
  library.files['README.md'] = `# layered-library\n\n${list.length} modules in ${layers} layers, each with its test.\n`;
  const expected = evaluator(library);
  for (const m of list) {
    library.files[m.path] = moduleSource(library, m);
    library.files[m.test] = testSource(m, expected(m.name, 0));
  }
  return library;
}

/** Twenty (or `count`) tasks, each breaking one module so that a test of its reach fails; every other one also refactors a second module. */
export function plantTasks(library: Library, count: number): PlantedTask[] {
  const { modules } = library;
  const used = new Set<string>();
  const tasks: PlantedTask[] = [];
  const good = evaluator(library);
  for (let i = 0; tasks.length < count; i++) {
    const reach = REACHES[tasks.length % REACHES.length]!;
    const threshold = REACHES.indexOf(reach);
    const broken = modules[pick(`task:${i}`, modules.length)]!;
    if (used.has(broken.name)) continue;
    const bad = evaluator(library, { name: broken.name, threshold });
    const failingTests = modules.filter((m) => bad(m.name, 0) !== good(m.name, 0)).map((m) => m.test);
    // A module nothing imports from far enough above cannot show a regression of this reach.
    if (failingTests.length === 0) continue;
    used.add(broken.name);
    const id = `t${String(tasks.length).padStart(2, '0')}`;
    const writes: Record<string, string> = { [broken.path]: moduleSource(library, broken, { threshold }) };
    let refactored: LibraryModule | undefined;
    if (tasks.length % 2 === 1) {
      for (let k = 0; !refactored || used.has(refactored.name); k++) refactored = modules[pick(`task:${i}:refactor:${k}`, modules.length)];
      used.add(refactored.name);
      Object.assign(writes, refactorOf(library, refactored));
    }
    tasks.push({ id, writes, broken, refactored, reach, failingTests });
  }
  return tasks;
}

/** `module` rewritten without a change of behaviour (a local for its imports' argument): a task that passes its gate. */
export const refactorOf = (library: Library, module: LibraryModule): Record<string, string> => ({ [module.path]: moduleSource(library, module, { refactor: true }) });

type Evaluate = (name: string, x: number) => number;

/** What each module returns for x, computed here as the generated code computes it (with one module broken, when given). */
function evaluator(library: Library, broken?: { name: string; threshold: number }): Evaluate {
  const byName = new Map(library.modules.map((m) => [m.name, m]));
  const memo = new Map<string, number>();
  const value: Evaluate = (name, x) => {
    const key = `${name}@${x}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const m = byName.get(name)!;
    const own = Number(name.slice(1));
    const sum = m.imports.length === 0 ? x * 31 : m.imports.reduce((total, dep) => total + value(dep, x + 1), 0);
    const slip = broken?.name === name && x >= broken.threshold ? 1 : 0;
    const result = (sum + own + slip) % MOD;
    memo.set(key, result);
    return result;
  };
  return value;
}

function moduleSource(library: Library, m: LibraryModule, change: { threshold?: number; refactor?: boolean } = {}): string {
  const byName = new Map(library.modules.map((d) => [d.name, d]));
  const own = Number(m.name.slice(1));
  const imports = m.imports.map((dep) => `import { ${dep} } from '${relativeTo(m, byName.get(dep)!)}';`);
  const [local, value] = m.imports.length === 0 ? ['scaled', 'x * 31'] : ['next', 'x + 1'];
  const input = change.refactor ? local : value;
  const sum = m.imports.length === 0 ? input : m.imports.map((dep) => `${dep}(${input})`).join(' + ');
  const body = [
    ...(change.refactor ? [`  const ${local} = ${value};`] : []),
    // The planted regression: an off-by-one that only inputs from `threshold` up meet.
    ...(change.threshold !== undefined ? [`  if (x >= ${change.threshold}) return (${sum} + ${own + 1}) % ${MOD};`] : []),
    `  return (${sum} + ${own}) % ${MOD};`,
  ];
  const about = m.imports.length ? `built on ${m.imports.join(', ')}` : 'a shared utility';
  return `${imports.join('\n')}${imports.length ? '\n\n' : ''}/** ${m.name}: ${about}. */\nexport function ${m.name}(x) {\n${body.join('\n')}\n}\n`;
}

function testSource(m: LibraryModule, expected: number): string {
  return `import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { ${m.name} } from '../${m.path}';\n\ntest('${m.name} of 0', () => {\n  assert.equal(${m.name}(0), ${expected});\n});\n`;
}

const relativeTo = (from: LibraryModule, to: LibraryModule): string => (from.layer === to.layer ? `./${to.name}.js` : `../l${to.layer}/${to.name}.js`);
