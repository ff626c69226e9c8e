import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cloneElsewhere, failedIds, makeRunnerRepo, recognised, runSelection, runShell, type RunnerRepo } from '../../../helpers/runnerFixture';

const ADD_TEST = `const { add } = require('../src/add');
describe('add', () => {
  test('passes', () => expect(add(1, 1)).toBe(2));
  test('fails', () => expect(add(1, 1)).toBe(3));
  test.skip('skipped', () => {});
});
`;
const MUL_TEST = `const { mul } = require('../src/mul');
test('mul works', () => expect(mul(2, 2)).toBe(4));
`;

function jestProject(): RunnerRepo {
  return makeRunnerRepo({
    'package.json': JSON.stringify({ name: 'fx', private: true, scripts: { test: 'jest' } }),
    'src/add.js': 'exports.add = (a, b) => a + b;\n',
    'src/mul.js': 'exports.mul = (a, b) => a * b;\n',
    'test/add.test.js': ADD_TEST,
    'test/mul.test.js': MUL_TEST,
  });
}

const FAILING = 'test/add.test.js::add › fails';

describe('jest as a gate runner', () => {
  const repos: { cleanup(): void }[] = [];
  const project = () => {
    const repo = jestProject();
    repos.push(repo);
    return repo;
  };
  after(() => repos.forEach((repo) => repo.cleanup()));

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['npx jest', 'npm test']) {
      const runner = recognised(command, repo.dir);
      assert.equal(runner.runner, 'jest');
      assert.deepEqual([...runner.selections].sort(), ['all', 'related', 'tests']);
      assert.notEqual(runShell(command, repo.dir).exitCode, 0, command);
      const run = runSelection(runner, { kind: 'all' }, repo.dir);
      assert.notEqual(run.exitCode, 0, command);
      assert.match(run.output, /● add › fails/, "jest's own output still prints");
      assert.deepEqual(failedIds(run.report), [FAILING]);
      assert.deepEqual({ passed: run.report?.passed, skipped: run.report?.skipped }, { passed: 2, skipped: 1 });
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'test/add.test.js': ADD_TEST.replace('toBe(3)', 'toBe(2)') });
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
    assert.equal(rerun.report?.passed, 0, 'no other test ran');
  });

  it('runs by --findRelatedTests the tests of a changed module and not the others', () => {
    const repo = project();
    const runner = recognised('npm test', repo.dir);
    const mul = runSelection(runner, { kind: 'related', changed: ['src/mul.js'] }, repo.dir);
    assert.equal(mul.exitCode, 0);
    assert.deepEqual({ passed: mul.report?.passed, failed: failedIds(mul.report) }, { passed: 1, failed: [] });
    const add = runSelection(runner, { kind: 'related', changed: ['src/add.js'] }, repo.dir);
    assert.deepEqual({ passed: add.report?.passed, failed: failedIds(add.report) }, { passed: 1, failed: [FAILING] });
  });

  it('counts a test file that does not load as a failed test named by its file', () => {
    const repo = project();
    repo.write({ 'test/broken.test.js': "test('never', () => {\n" });
    const run = runSelection(recognised('npm test', repo.dir), { kind: 'all' }, repo.dir);
    assert.deepEqual(failedIds(run.report), [FAILING, 'test/broken.test.js'].sort());
  });
});
