import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAILED_LIST_CAP } from '../../../../src/engine/gate/testRunners';
import { assertRerunFailsAgain, assertWholeRunFails, assertWholeRunPasses } from '../../../helpers/runnerChecks';
import { failedIds, makeRunnerRepo, recognised, runSelection, suiteProjects, wholeRun, type RunnerRepo } from '../../../helpers/runnerFixture';

// A project whose tests run on what its build wrote: the gate's chain `node build.js && node --test test/`.
const BUILD = `const fs = require('node:fs');
fs.mkdirSync('dist', { recursive: true });
for (const name of fs.readdirSync('src')) fs.copyFileSync('src/' + name, 'dist/' + name);
`;
const ADD_TEST = `const { describe, test } = require('node:test');
const assert = require('node:assert');
const { add } = require('../dist/add.js');
describe('add', () => {
  test('passes', () => assert.equal(add(1, 1), 2));
  test('fails', () => assert.equal(add(1, 1), 3));
  test('skipped', { skip: 'later' }, () => {});
});
`;
const MUL_TEST = `const test = require('node:test');
const assert = require('node:assert');
const { mul } = require('../dist/mul.js');
test('mul works', () => assert.equal(mul(2, 2), 4));
`;
const COMMAND = 'node build.js && node --test test/';

function nodeProject(): RunnerRepo {
  return makeRunnerRepo({
    '.gitignore': 'node_modules\ndist\n',
    'package.json': JSON.stringify({ name: 'fx', private: true, scripts: { test: COMMAND } }),
    'build.js': BUILD,
    'src/add.js': 'exports.add = (a, b) => a + b;\n',
    'src/mul.js': 'exports.mul = (a, b) => a * b;\n',
    'test/add.test.js': ADD_TEST,
    'test/mul.test.js': MUL_TEST,
  });
}

const FAILING = 'test/add.test.js::add › fails';

describe('node:test as a gate runner', () => {
  const { project, projectElsewhere } = suiteProjects(nodeProject);

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of [COMMAND, 'npm test']) {
      const { runner, run } = assertWholeRunFails(command, repo.dir, { runner: 'node:test', failed: [FAILING], passed: 2, skipped: 1 });
      assert.deepEqual([...runner.selections].sort(), ['all', 'files', 'tests']);
      assert.match(run.command.command, /^node build\.js && node --test /);
      assert.match(run.output, /✖ fails/, 'the spec reporter still prints for a person and for the actor');
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'test/add.test.js': ADD_TEST.replace('add(1, 1), 3', 'add(1, 1), 2') });
    assertWholeRunPasses('npm test', repo.dir);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    const elsewhere = projectElsewhere();
    const there = wholeRun('npm test', elsewhere.dir);
    assert.deepEqual(failedIds(there.report), [FAILING]);
    assert.ok(!there.report!.failed[0]!.id.includes(elsewhere.dir));
  });

  it('reruns only the named test', () => {
    const rerun = assertRerunFailsAgain('npm test', project().dir, [FAILING]);
    assert.equal(rerun.report?.passed, 0, 'no other test ran');
  });

  it('lists its test files and runs only the files it is given', async () => {
    const repo = project();
    const runner = recognised(COMMAND, repo.dir);
    assert.deepEqual(await runner.testFiles?.(repo.dir), ['test/add.test.js', 'test/mul.test.js']);
    const run = runSelection(runner, { kind: 'files', files: ['test/mul.test.js'] }, repo.dir);
    assert.equal(run.exitCode, 0);
    assert.deepEqual({ passed: run.report?.passed, failed: failedIds(run.report) }, { passed: 1, failed: [] });
  });

  it('counts a test file that does not load as a failed test named by its file', () => {
    const repo = project();
    repo.write({ 'test/broken.test.js': "require('node:test')('never', () => {\n" });
    const run = wholeRun('npm test', repo.dir);
    assert.deepEqual(failedIds(run.report), [FAILING, 'test/broken.test.js'].sort());
  });

  it('keeps the count of failures beyond the ones it lists', () => {
    const repo = project();
    repo.write({ 'test/many.test.js': `const test = require('node:test');\nfor (let i = 0; i < 600; i++) test('fails ' + i, () => { throw new Error('no'); });\n` });
    const report = wholeRun('npm test', repo.dir).report!;
    assert.equal(report.failed.length, FAILED_LIST_CAP);
    assert.equal(report.failedCount, 601);
  });

  it('reads no report when the build before the tests fails, so the gate judges the command by its exit code', () => {
    const repo = project();
    repo.write({ 'build.js': 'process.exit(2);\n' });
    const run = wholeRun('npm test', repo.dir);
    assert.equal(run.exitCode, 2);
    assert.equal(run.report, undefined);
  });
});
