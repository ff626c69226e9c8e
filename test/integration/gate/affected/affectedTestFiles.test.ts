import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { affectedTestFiles } from '../../../../src/engine/gate/affected/affectedTestFiles';
import { describeAffectedSupport } from '../../../../src/engine/gate/affected/describeAffectedSupport';
import { commitChange, LEDGER_LIBRARY, LEDGER_TESTS } from '../../../helpers/affectedRepos';
import { tempRepos } from '../../../helpers/fileScoped';

const makeRepo = tempRepos();

/** What the gate would run for a task whose commit makes `edits` to the ledger library (plus `extra` files on its base). */
async function selectionFor(edits: Record<string, string | null>, extra: Record<string, string> = {}) {
  const repo = makeRepo({ ...LEDGER_LIBRARY, ...extra });
  const changed = commitChange(repo, edits);
  return { selection: await affectedTestFiles(repo.dir, LEDGER_TESTS, changed), changed, repo };
}

const testFilesOf = (selection: Awaited<ReturnType<typeof affectedTestFiles>>): string[] => {
  assert.equal(selection.kind, 'files', `expected a selection of test files, got the full suite: ${selection.why}`);
  return selection.kind === 'files' ? selection.testFiles : [];
};

describe('affected test files, by the import graph', { concurrency: true }, () => {
  test('a change to a leaf module selects only the tests that reach it (its own, and the barrel test through src/index.ts)', async () => {
    const { selection } = await selectionFor({ 'src/reports/escape.ts': "export const escapeCsv = (cell: string): string => JSON.stringify(cell);\n" });
    assert.deepEqual(testFilesOf(selection), ['test/api.test.ts', 'test/csv.test.ts']);
    assert.equal(selection.why, 'src/reports/escape.ts: 2 of 6 test files import it');
  });

  test('a change to a shared module selects every test that reaches it, through index files, `.js` names of `.ts` sources and a test helper', async () => {
    const { selection } = await selectionFor({ 'src/util/round.ts': 'export const roundHalfEven = (n: number): number => Math.round(n);\n' });
    // Not csv.test.ts: nothing it imports reaches round.ts.
    assert.deepEqual(testFilesOf(selection), ['test/accounts.test.ts', 'test/api.test.ts', 'test/balance.test.ts', 'test/format.test.ts', 'test/money.test.ts']);
  });

  test('an import of types only is an edge too (a type checking runner would fail on it)', async () => {
    const { selection } = await selectionFor({ 'src/types.ts': 'export interface Entry { account: string; cents: bigint }\n' });
    assert.deepEqual(testFilesOf(selection), ['test/accounts.test.ts', 'test/api.test.ts', 'test/balance.test.ts']);
  });

  test('a changed test file selects itself, and a change to a leaf plus a test both', async () => {
    const { selection } = await selectionFor({ 'test/format.test.ts': "import { test } from 'node:test';\n\ntest('format', () => {});\n" });
    assert.deepEqual(testFilesOf(selection), ['test/format.test.ts']);
    assert.match(selection.why, /^test\/format\.test\.ts: the changed test files run themselves/);
    const both = await selectionFor({ 'test/format.test.ts': '// nothing\n', 'src/reports/escape.ts': 'export const escapeCsv = (c: string) => c;\n' });
    assert.deepEqual(testFilesOf(both.selection), ['test/api.test.ts', 'test/csv.test.ts', 'test/format.test.ts']);
    assert.match(both.selection.why, /and 1 more: 3 of 6 test files import them$/);
  });

  test('package.json, a lockfile, a runner or compiler config, an environment file and data run the full suite, naming the file', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'package.json': LEDGER_LIBRARY['package.json']!.replace('^3.6.0', '^4.1.0') }, /^package\.json: a package\.json decides how every module loads$/],
      [{ 'package-lock.json': '{ "lockfileVersion": 3, "packages": {} }\n' }, /^package-lock\.json: a lockfile/],
      [{ '.mocharc.json': '{ "spec": "test/**/*.test.ts" }\n' }, /^\.mocharc\.json: a configuration/],
      [{ 'tsconfig.json': '{ "compilerOptions": { "strict": false } }\n' }, /^tsconfig\.json: a configuration/],
      [{ '.env': 'TZ=UTC\n' }, /^\.env: a configuration/],
      [{ 'test/fixtures/rates.csv': 'EUR,1\n' }, /^test\/fixtures\/rates\.csv: not a module of the import graph/],
    ];
    for (const [edits, why] of cases) {
      const { selection } = await selectionFor({ 'src/reports/escape.ts': 'export const escapeCsv = (c: string) => c;\n', ...edits });
      assert.equal(selection.kind, 'full', `${Object.keys(edits)[0]} should run the full suite`);
      assert.match(selection.why, why);
    }
  });

  test('a module no test imports runs the full suite: a test may run it another way (a spawned script)', async () => {
    const { selection } = await selectionFor({ 'bin/ledger.ts': "import { Ledger } from '../src/index.js';\nconsole.log(new Ledger());\n" });
    assert.deepEqual(selection, { kind: 'full', why: 'bin/ledger.ts: no test file imports it (a test may still run it another way)' });
  });

  test('a deleted module selects the tests of the files that still import it by name, and nothing once its importers moved on', async () => {
    const broken = await selectionFor({ 'src/reports/escape.ts': null });
    assert.deepEqual(testFilesOf(broken.selection), ['test/api.test.ts', 'test/csv.test.ts'], 'csv.ts still imports ./escape.js: its tests must run (and fail)');
    const inlined = await selectionFor({ 'src/reports/escape.ts': null, 'src/reports/csv.ts': "export const csvLine = (cells: string[]): string => cells.join(',');\n" });
    assert.deepEqual(inlined.changed, ['src/reports/csv.ts', 'src/reports/escape.ts']);
    assert.deepEqual(testFilesOf(inlined.selection), ['test/api.test.ts', 'test/csv.test.ts']);
  });

  test('a workspace-free bare import that no package.json declares (a path alias) cannot be placed: the full suite runs', async () => {
    const { selection } = await selectionFor({ 'src/reports/csv.ts': "import { escapeCsv } from '@/reports/escape';\nexport const csvLine = (c: string[]) => c.map(escapeCsv).join(',');\n" });
    assert.equal(selection.kind, 'full');
    assert.match(selection.why, /^src\/reports\/csv\.ts imports '@\/reports\/escape', which is neither a dependency nor a file of the repository/);
  });

  test('an import() of a computed name, and a syntax the lexer cannot read, run the full suite with where they are', async () => {
    const computed = await selectionFor({ 'src/reports/csv.ts': "export const csvLine = async (c: string[], style: string) => (await import(`./styles/${style}.js`)).join(c);\n" });
    assert.deepEqual(computed.selection, { kind: 'full', why: 'src/reports/csv.ts:1: import(`./styles/${style}.js`) loads a computed name' });
    const unreadable = await selectionFor({ 'src/reports/escape.ts': 'export const escapeCsv = (c: string) => { return c;\n' });
    assert.equal(unreadable.selection.kind, 'full');
    assert.match(unreadable.selection.why, /^src\/reports\/escape\.ts:\d+: es-module-lexer cannot read it/);
  });

  test('a module larger than 4 MB (a bundle, generated data) is not read: the full suite runs', async () => {
    const { selection } = await selectionFor({ 'src/reports/escape.ts': `export const table = ${JSON.stringify('x'.repeat(4 * 1024 * 1024))};\nexport const escapeCsv = (c: string) => c;\n` });
    assert.deepEqual(selection, { kind: 'full', why: 'src/reports/escape.ts is larger than 4 MB' });
  });

  test('a CommonJS repository runs the full suite, and says why', async () => {
    const repo = makeRepo({
      'package.json': JSON.stringify({ name: 'legacy', scripts: { test: 'mocha' } }),
      'lib/index.js': "const parse = require('./parse');\nmodule.exports = { parse };\n",
      'lib/parse.js': 'module.exports = (text) => text.split(",");\n',
      'test/parse.test.js': "const assert = require('node:assert');\nconst { parse } = require('../lib');\nit('parses', () => assert.equal(parse('a').length, 1));\n",
    });
    const changed = commitChange(repo, { 'lib/parse.js': 'module.exports = (text) => text.split(";");\n' });
    const selection = await affectedTestFiles(repo.dir, ['test/parse.test.js'], changed);
    assert.deepEqual(selection, { kind: 'full', why: 'test/parse.test.js:1 calls require(); CommonJS modules: the import graph cannot place them' });
    assert.match(await describeAffectedSupport(repo.dir, ['test/parse.test.js']), /CommonJS modules: the import graph cannot place them: every task gate runs the full suite$/);
  });

  test('a symlink that leads out of the repository is not followed: what it points at is never read', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'taskloom-outside-'));
    try {
      // Read, this file would make the graph give up (require); as a dependency outside the repository it is left alone.
      writeFileSync(join(outside, 'vendor.js'), "module.exports = require('child_process');\n");
      const repo = makeRepo(LEDGER_LIBRARY);
      symlinkSync(join(outside, 'vendor.js'), join(repo.dir, 'src/reports/vendor.js'));
      commitChange(repo, {});
      const changed = commitChange(repo, { 'src/reports/escape.ts': "import './vendor.js';\nexport const escapeCsv = (c: string) => c;\n" });
      assert.deepEqual(testFilesOf(await affectedTestFiles(repo.dir, LEDGER_TESTS, changed)), ['test/api.test.ts', 'test/csv.test.ts']);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test('doctor reads the graph: how many ES modules and test files it follows', async () => {
    const repo = makeRepo(LEDGER_LIBRARY);
    assert.equal(await describeAffectedSupport(repo.dir, LEDGER_TESTS), 'import graph: 22 ES modules, 6 test files');
  });
});
