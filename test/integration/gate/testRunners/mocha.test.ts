import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cloneElsewhere, failedIds, makeRunnerRepo, recognised, runSelection, runShell, type RunnerRepo } from '../../../helpers/runnerFixture';

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
  const repos: { cleanup(): void }[] = [];
  const project = () => {
    const repo = mochaProject();
    repos.push(repo);
    return repo;
  };
  after(() => repos.forEach((repo) => repo.cleanup()));

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['npx mocha', 'npm test']) {
      const runner = recognised(command, repo.dir);
      assert.equal(runner.runner, 'mocha');
      assert.deepEqual([...runner.selections].sort(), ['all', 'files', 'tests']);
      assert.notEqual(runShell(command, repo.dir).exitCode, 0, command);
      const run = runSelection(runner, { kind: 'all' }, repo.dir);
      assert.notEqual(run.exitCode, 0, command);
      assert.match(run.output, /2 passing[\s\S]*1 failing/, "mocha's spec output still prints");
      assert.deepEqual(failedIds(run.report), [FAILING]);
      assert.deepEqual({ passed: run.report?.passed, skipped: run.report?.skipped }, { passed: 2, skipped: 1 });
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'test/add.test.js': ADD_TEST.replace('add(1, 1), 3', 'add(1, 1), 2') });
    assert.equal(runShell('npm test', repo.dir).exitCode, 0);
    const run = runSelection(recognised('npm test', repo.dir), { kind: 'all' }, repo.dir);
    assert.equal(run.exitCode, 0);
    assert.deepEqual(failedIds(run.report), []);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    const elsewhere = cloneElsewhere(project());
    repos.push(elsewhere);
    assert.deepEqual(failedIds(runSelection(recognised('npm test', elsewhere.dir), { kind: 'all' }, elsewhere.dir).report), [FAILING]);
  });

  it('reruns only the named test', () => {
    const repo = project();
    const runner = recognised('npm test', repo.dir);
    const failing = runSelection(runner, { kind: 'all' }, repo.dir).report!.failed;
    const rerun = runSelection(runner, { kind: 'tests', tests: failing }, repo.dir);
    assert.notEqual(rerun.exitCode, 0);
    assert.deepEqual(failedIds(rerun.report), [FAILING]);
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
    const run = runSelection(recognised('npm test', repo.dir), { kind: 'all' }, repo.dir);
    assert.notEqual(run.exitCode, 0);
    assert.equal(run.report, undefined);
  });
});
