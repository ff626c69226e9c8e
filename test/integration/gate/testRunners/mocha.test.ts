import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertRerunFailsAgain, assertWholeRunFails, assertWholeRunPasses } from '../../../helpers/runnerChecks';
import { failedIds, makeRunnerRepo, recognised, runSelection, suiteProjects, wholeRun, type RunnerRepo } from '../../../helpers/runnerFixture';

const ADD_TEST = `const assert = require('node:assert');
const { add } = require('../src/add');
describe('add', () => {
  it('passes', () => assert.equal(add(1, 1), 2));
  it('fails', () => assert.equal(add(1, 1), 3));
  it.skip('skipped', () => {});
});
`;
const MUL_TEST = `const assert = require('node:assert');
const { mul } = require('../src/mul');
it('mul works', () => assert.equal(mul(2, 2), 4));
`;

function mochaProject(): RunnerRepo {
  return makeRunnerRepo({
    'package.json': JSON.stringify({ name: 'fx', private: true, scripts: { test: 'mocha' } }),
    'src/add.js': 'exports.add = (a, b) => a + b;\n',
    'src/mul.js': 'exports.mul = (a, b) => a * b;\n',
    'test/add.test.js': ADD_TEST,
    'test/mul.test.js': MUL_TEST,
  });
}

const FAILING = 'test/add.test.js::add › fails';

describe('mocha as a gate runner', () => {
  const { project, projectElsewhere } = suiteProjects(mochaProject);

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['npx mocha', 'npm test']) {
      const { runner, run } = assertWholeRunFails(command, repo.dir, { runner: 'mocha', failed: [FAILING], passed: 2, skipped: 1 });
      assert.deepEqual([...runner.selections].sort(), ['all', 'files', 'tests']);
      assert.match(run.output, /2 passing[\s\S]*1 failing/, "mocha's spec output still prints");
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'test/add.test.js': ADD_TEST.replace('add(1, 1), 3', 'add(1, 1), 2') });
    assertWholeRunPasses('npm test', repo.dir);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    assert.deepEqual(failedIds(wholeRun('npm test', projectElsewhere().dir).report), [FAILING]);
  });

  it('reruns only the named test', () => {
    const rerun = assertRerunFailsAgain('npm test', project().dir, [FAILING]);
    assert.deepEqual({ passed: rerun.report?.passed, skipped: rerun.report?.skipped }, { passed: 0, skipped: 0 }, 'no other test ran');
  });

  it('lists its test files and runs only the files it is given', async () => {
    const repo = project();
    const runner = recognised('npm test', repo.dir);
    assert.deepEqual(await runner.testFiles?.(repo.dir), ['test/add.test.js', 'test/mul.test.js']);
    const run = runSelection(runner, { kind: 'files', files: ['test/mul.test.js'] }, repo.dir);
    assert.equal(run.exitCode, 0);
    assert.deepEqual({ passed: run.report?.passed, failed: failedIds(run.report) }, { passed: 1, failed: [] });
  });

  it('names a failed hook by its suite, the same on every run, and reruns that suite for it', () => {
    const repo = project();
    repo.write({ 'test/hooked.test.js': "describe('hooked', () => {\n  before(() => { throw new Error('no database'); });\n  it('needs it', () => {});\n});\n" });
    const runner = recognised('npm test', repo.dir);
    const hook = 'test/hooked.test.js::hooked › "before all" hook';
    const run = runSelection(runner, { kind: 'all' }, repo.dir);
    assert.deepEqual(failedIds(run.report), [FAILING, hook].sort());
    const rerun = runSelection(runner, { kind: 'tests', tests: run.report!.failed.filter((test) => test.id === hook) }, repo.dir);
    assert.deepEqual(failedIds(rerun.report), [hook]);
  });

  it('reads no report when a test file does not load: mocha stops before any test, and the gate judges the command by its exit code', () => {
    const repo = project();
    repo.write({ 'test/broken.test.js': "it('never', () => {\n" });
    const run = wholeRun('npm test', repo.dir);
    assert.notEqual(run.exitCode, 0);
    assert.equal(run.report, undefined);
  });
});
