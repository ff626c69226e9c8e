import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { affectedPackages } from '../../../../src/engine/gate/affected/affectedPackages';
import { affectedTestFiles } from '../../../../src/engine/gate/affected/affectedTestFiles';
import { commandForPackages } from '../../../../src/engine/gate/affected/commandForPackages';
import { describeAffectedSupport } from '../../../../src/engine/gate/affected/describeAffectedSupport';
import type { WorkspaceLayout } from '../../../../src/engine/gate/affected/affectedSelection';
import { readWorkspaceLayout } from '../../../../src/engine/gate/affected/workspaceLayout';
import { commitChange } from '../../../helpers/affectedRepos';
import { tempRepos } from '../../../helpers/fileScoped';

const makeRepo = tempRepos();

const manifest = (name: string, dependencies: Record<string, string> = {}) =>
  JSON.stringify({ name, version: '1.0.0', type: 'module', exports: { '.': './src/index.js' }, scripts: { test: 'node --test' }, dependencies }, null, 2);

/** An npm monorepo: @demo/b depends on @demo/a, @demo/cli on @demo/b; @demo/c stands alone (its test needs a service that is not running here). */
const MONOREPO: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'demo-monorepo', private: true, workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }, null, 2),
  'package-lock.json': '{ "lockfileVersion": 3 }\n',
  '.gitignore': 'node_modules/\n',
  'packages/a/package.json': manifest('@demo/a'),
  'packages/a/src/index.js': "export { parse } from './parse.js';\nexport { format } from './format.js';\n",
  'packages/a/src/parse.js': "export const parse = (text) => text.split(',').map((cell) => cell.trim());\n",
  'packages/a/src/format.js': "export const format = (cells) => cells.join(', ');\n",
  'packages/a/test/parse.test.js': "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { parse } from '../src/index.js';\n\ntest('a parses cells', () => assert.deepEqual(parse('x, y'), ['x', 'y']));\n",
  'packages/b/package.json': manifest('@demo/b', { '@demo/a': '^1.0.0' }),
  'packages/b/src/index.js': "import { parse, format } from '@demo/a';\n\nexport const normalise = (text) => format(parse(text));\n",
  'packages/b/test/normalise.test.js': "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { normalise } from '../src/index.js';\n\ntest('b normalises a line', () => assert.equal(normalise('x,y'), 'x, y'));\n",
  'packages/cli/package.json': manifest('@demo/cli', { '@demo/b': '^1.0.0' }),
  'packages/cli/src/index.js': "import { normalise } from '@demo/b';\n\nexport const main = (args) => normalise(args.join(','));\n",
  'packages/cli/test/main.test.js': "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { main } from '../src/index.js';\n\ntest('cli prints its arguments', () => assert.equal(main(['x', 'y']), 'x, y'));\n",
  'packages/c/package.json': manifest('@demo/c'),
  'packages/c/src/index.js': "export const ping = async () => fetch('http://127.0.0.1:9/health');\n",
  'packages/c/test/ping.test.js': "import { test } from 'node:test';\nimport { ping } from '../src/index.js';\n\ntest('c reaches its service', async () => { await ping(); });\n",
};
const TEST_FILES = Object.keys(MONOREPO).filter((path) => path.endsWith('.test.js'));

function layoutOf(files: Record<string, string>): WorkspaceLayout {
  const layout = readWorkspaceLayout(makeRepo(files).dir);
  assert.ok(layout, 'the workspaces should be read');
  return layout;
}

const packageNames = (selection: ReturnType<typeof affectedPackages>) => (selection.kind === 'packages' ? selection.packages.map((pkg) => pkg.name) : selection);

/** Runs a gate command as the gate does (sh -c), without the npm_* variables and the node:test context of whoever runs these tests. */
function runGateCommand(dir: string, command: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_TEST_CONTEXT'));
  const run = spawnSync('sh', ['-c', command], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('npm, pnpm and yarn workspaces', { concurrency: true }, () => {
  test('the layout names each package, its folder and the packages it depends on', () => {
    assert.deepEqual(layoutOf(MONOREPO), {
      tool: 'npm',
      declaredIn: 'package.json',
      packages: [
        { name: '@demo/a', dir: 'packages/a' },
        { name: '@demo/b', dir: 'packages/b' },
        { name: '@demo/c', dir: 'packages/c' },
        { name: '@demo/cli', dir: 'packages/cli' },
      ],
      dependsOn: { '@demo/a': [], '@demo/b': ['@demo/a'], '@demo/c': [], '@demo/cli': ['@demo/b'] },
    });
  });

  test('a change in a runs a and everything that depends on it (b, and cli through b), not c; a change in c runs c', () => {
    const layout = layoutOf(MONOREPO);
    const inA = affectedPackages(layout, ['packages/a/src/parse.js']);
    assert.deepEqual(packageNames(inA), ['@demo/a', '@demo/b', '@demo/cli']);
    assert.equal(inA.why, 'packages/a/src/parse.js changed @demo/a, which @demo/b, @demo/cli depend on: 3 of 4 packages');
    assert.deepEqual(packageNames(affectedPackages(layout, ['packages/c/src/index.js', 'packages/c/test/ping.test.js'])), ['@demo/c']);
  });

  test('a file in no package (the root lockfile, a root config) runs every package', () => {
    const layout = layoutOf(MONOREPO);
    assert.deepEqual(affectedPackages(layout, ['packages/c/src/index.js', 'package-lock.json']), {
      kind: 'full',
      why: 'package-lock.json is in no package of the npm workspace (a root file): it may change every package',
    });
  });

  test('npm test --workspaces narrowed to the affected packages runs their tests only, for real', () => {
    const repo = makeRepo(MONOREPO);
    // What `npm install` does for workspaces: each package linked into node_modules by its name.
    mkdirSync(join(repo.dir, 'node_modules/@demo'), { recursive: true });
    for (const name of ['a', 'b', 'c', 'cli']) symlinkSync(`../../packages/${name}`, join(repo.dir, 'node_modules/@demo', name));
    const layout = readWorkspaceLayout(repo.dir)!;
    const selection = affectedPackages(layout, commitChange(repo, { 'packages/b/src/index.js': "import { parse, format } from '@demo/a';\n\nexport const normalise = (text) => format(parse(text.trim()));\n" }));
    assert.equal(selection.kind, 'packages');
    const narrowed = commandForPackages(layout, 'npm test --workspaces', selection.kind === 'packages' ? selection.packages : []);
    assert.equal(narrowed, 'npm test --workspace=packages/b --workspace=packages/cli');
    const whole = runGateCommand(repo.dir, 'npm test --workspaces');
    assert.notEqual(whole.status, 0, 'the whole suite fails: c needs its service');
    assert.match(whole.output, /not ok 1 - c reaches its service/);
    const run = runGateCommand(repo.dir, narrowed!);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /ok 1 - b normalises a line/);
    assert.match(run.output, /ok 1 - cli prints its arguments/);
    assert.doesNotMatch(run.output, /a parses cells|c reaches its service/);
  });

  test("npm's other run-everywhere forms are narrowed; a command that is not one runs whole", () => {
    const layout = layoutOf(MONOREPO);
    const [a, b] = layout.packages;
    assert.equal(commandForPackages(layout, 'npm run test -ws', [a!, b!]), 'npm run test --workspace=packages/a --workspace=packages/b');
    assert.equal(commandForPackages(layout, 'CI=1 npm run-script test --workspaces --if-present', [a!]), 'CI=1 npm run-script test --workspace=packages/a --if-present');
    for (const whole of ['npm test', 'npm test --workspaces --include-workspace-root', 'cd packages && npm test --workspaces', 'npm ci --workspaces', 'npm test --workspaces && npm run lint --workspaces']) {
      assert.equal(commandForPackages(layout, whole, [a!]), undefined, whole);
    }
    assert.equal(commandForPackages(layout, 'npm test --workspaces', []), undefined, 'no package: the lead decides, not an empty filter');
    const quoted = { name: "@demo/it's", dir: "packages/it's here" };
    assert.equal(commandForPackages(layout, 'npm test -ws', [quoted]), `npm test --workspace='packages/it'\\''s here'`);
  });

  test('pnpm-workspace.yaml: pnpm -r test and pnpm --recursive run test are narrowed with --filter', () => {
    const { 'package.json': _, ...packages } = MONOREPO;
    const layout = layoutOf({ ...packages, 'package.json': '{ "name": "demo-monorepo", "private": true }', 'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - '!packages/c'\n" });
    assert.equal(layout.tool, 'pnpm');
    assert.deepEqual(layout.packages.map((pkg) => pkg.name), ['@demo/a', '@demo/b', '@demo/cli'], 'packages/c is excluded by the yaml');
    const selected = layout.packages.slice(0, 2);
    assert.equal(commandForPackages(layout, 'pnpm -r test', selected), 'pnpm --recursive --filter @demo/a --filter @demo/b test');
    assert.equal(commandForPackages(layout, 'pnpm --recursive run test', selected), 'pnpm --recursive --filter @demo/a --filter @demo/b run test');
    assert.equal(commandForPackages(layout, 'pnpm --filter @demo/a -r test', selected), undefined, 'a filter of its own: left as written');
  });

  test('yarn workspaces (a yarn.lock, no package-lock.json): yarn 1 and yarn 2+ forms are narrowed', () => {
    const { 'package-lock.json': _, ...files } = MONOREPO;
    const layout = layoutOf({ ...files, 'yarn.lock': '# yarn lockfile v1\n' });
    assert.equal(layout.tool, 'yarn');
    const selected = layout.packages.slice(0, 2);
    assert.equal(commandForPackages(layout, 'yarn workspaces run test', selected), 'yarn workspace @demo/a run test && yarn workspace @demo/b run test');
    assert.equal(commandForPackages(layout, 'yarn workspaces foreach -A run test', selected), 'yarn workspaces foreach --include @demo/a --include @demo/b -A run test');
    assert.equal(commandForPackages(layout, 'CI=1 yarn workspaces run test', selected), undefined, 'rewriting it would lose CI=1');
    assert.equal(commandForPackages(layout, 'npm test --workspaces', selected), 'npm test --workspace=packages/a --workspace=packages/b', 'npm reads the same workspaces');
    assert.equal(commandForPackages(layout, 'pnpm -r test', selected), undefined, 'pnpm reads only pnpm-workspace.yaml');
  });

  test('manifests that are not what they claim (YAML that does not parse, a package.json that is not JSON) read as no layout or no package, never as an error', () => {
    const { 'package.json': _, ...packages } = MONOREPO;
    assert.equal(readWorkspaceLayout(makeRepo({ ...packages, 'pnpm-workspace.yaml': 'packages: [\n  - a: b: c\n' }).dir), undefined);
    assert.equal(readWorkspaceLayout(makeRepo({ ...packages, 'package.json': '{ "workspaces": ["packages/*"' }).dir), undefined);
    const layout = layoutOf({ ...MONOREPO, 'packages/c/package.json': '<<<<<<< HEAD\n' });
    assert.deepEqual(layout.packages.map((pkg) => pkg.name), ['@demo/a', '@demo/b', '@demo/cli']);
    assert.equal(affectedPackages(layout, ['packages/c/src/index.js']).kind, 'full', 'a file of the unreadable package is in no package');
  });

  test("the import graph follows a workspace package's own name to its exports, inside the repository", async () => {
    const repo = makeRepo(MONOREPO);
    const changed = commitChange(repo, { 'packages/a/src/format.js': "export const format = (cells) => cells.join(',');\n" });
    const selection = await affectedTestFiles(repo.dir, TEST_FILES, changed);
    assert.deepEqual(selection.kind === 'files' ? selection.testFiles : selection, ['packages/a/test/parse.test.js', 'packages/b/test/normalise.test.js', 'packages/cli/test/main.test.js']);
    assert.equal(await describeAffectedSupport(repo.dir, TEST_FILES), 'workspaces (npm): 4 packages; import graph: 10 ES modules, 4 test files');
  });

  test("a workspace package whose entry is built output not in the repository cannot be placed: the full suite runs", async () => {
    const repo = makeRepo({ ...MONOREPO, 'packages/a/package.json': JSON.stringify({ name: '@demo/a', type: 'module', main: 'dist/index.js' }) });
    const changed = commitChange(repo, { 'packages/a/src/parse.js': 'export const parse = (text) => [text];\n' });
    assert.deepEqual(await affectedTestFiles(repo.dir, TEST_FILES, changed), {
      kind: 'full',
      why: "'@demo/a' leads to packages/a/dist/index.js, which is not a file of the repository (built output?)",
    });
  });
});
