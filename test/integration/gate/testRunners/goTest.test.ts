import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { cloneElsewhere, failedIds, makeRunnerRepo, recognised, runSelection, runShell, type RunnerRepo } from '../../../helpers/runnerFixture';

const ADD_TEST = `package add

import "testing"

func TestAddPasses(t *testing.T) { if Add(1, 1) != 2 { t.Fatal("bad") } }
func TestAddFails(t *testing.T) { if Add(1, 1) != 3 { t.Fatal("1+1 is not 3") } }
func TestAddSkipped(t *testing.T) { t.Skip("later") }
`;

/** A module of three packages: `user` imports `add`; `mul` stands alone. */
function goProject(): RunnerRepo {
  return makeRunnerRepo({
    'package.json': JSON.stringify({ name: 'fx', private: true, scripts: { test: 'go test ./...' } }),
    'go.mod': 'module example.com/fx\n\ngo 1.19\n',
    'add/add.go': 'package add\n\nfunc Add(a, b int) int { return a + b }\n',
    'add/add_test.go': ADD_TEST,
    'mul/mul.go': 'package mul\n\nfunc Mul(a, b int) int { return a * b }\n',
    'mul/mul_test.go': 'package mul\n\nimport "testing"\n\nfunc TestMul(t *testing.T) { if Mul(2, 2) != 4 { t.Fatal("bad") } }\n',
    'user/user.go': 'package user\n\nimport "example.com/fx/add"\n\nfunc Twice(a int) int { return add.Add(a, a) }\n',
    'user/user_test.go': 'package user\n\nimport "testing"\n\nfunc TestTwice(t *testing.T) { if Twice(2) != 4 { t.Fatal("bad") } }\n',
  });
}

const FAILING = 'add::TestAddFails';
const goAvailable = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

describe('go test as a gate runner', { skip: goAvailable ? false : 'go is not installed' }, () => {
  const repos: { cleanup(): void }[] = [];
  const project = () => {
    const repo = goProject();
    repos.push(repo);
    return repo;
  };
  after(() => repos.forEach((repo) => repo.cleanup()));

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['go test ./...', 'npm test']) {
      const runner = recognised(command, repo.dir);
      assert.equal(runner.runner, 'go test');
      assert.deepEqual([...runner.selections].sort(), ['all', 'related', 'tests']);
      assert.notEqual(runShell(command, repo.dir).exitCode, 0, command);
      const run = runSelection(runner, { kind: 'all' }, repo.dir);
      assert.notEqual(run.exitCode, 0, command);
      assert.match(run.output, /--- FAIL: TestAddFails/, "go's own words are printed from its -json events");
      assert.deepEqual(failedIds(run.report), [FAILING]);
      assert.deepEqual({ passed: run.report?.passed, skipped: run.report?.skipped }, { passed: 3, skipped: 1 });
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'add/add_test.go': ADD_TEST.replace('Add(1, 1) != 3', 'Add(1, 1) != 2') });
    assert.equal(runShell('go test ./...', repo.dir).exitCode, 0);
    const run = runSelection(recognised('go test ./...', repo.dir), { kind: 'all' }, repo.dir);
    assert.equal(run.exitCode, 0);
    assert.deepEqual(failedIds(run.report), []);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    const elsewhere = cloneElsewhere(project());
    repos.push(elsewhere);
    assert.deepEqual(failedIds(runSelection(recognised('go test ./...', elsewhere.dir), { kind: 'all' }, elsewhere.dir).report), [FAILING]);
  });

  it('reruns only the named test, in its package', () => {
    const repo = project();
    const runner = recognised('go test ./...', repo.dir);
    const failing = runSelection(runner, { kind: 'all' }, repo.dir).report!.failed;
    const rerun = runSelection(runner, { kind: 'tests', tests: failing }, repo.dir);
    assert.notEqual(rerun.exitCode, 0);
    assert.deepEqual(failedIds(rerun.report), [FAILING]);
    assert.deepEqual({ passed: rerun.report?.passed, skipped: rerun.report?.skipped }, { passed: 0, skipped: 0 }, 'no other test ran');
  });

  it('runs the packages of the changed files and those that import them, and not the others', () => {
    const repo = project();
    const runner = recognised('go test ./...', repo.dir);
    const mul = runSelection(runner, { kind: 'related', changed: ['mul/mul.go'] }, repo.dir);
    assert.equal(mul.exitCode, 0);
    assert.deepEqual({ passed: mul.report?.passed, failed: failedIds(mul.report) }, { passed: 1, failed: [] });
    const add = runSelection(runner, { kind: 'related', changed: ['add/add.go'] }, repo.dir);
    assert.deepEqual({ passed: add.report?.passed, failed: failedIds(add.report) }, { passed: 2, failed: [FAILING] }, 'add and user, which imports it');
  });

  it('counts a package that does not build as a failed test named by its folder', () => {
    const repo = project();
    repo.write({ 'mul/mul_test.go': 'package mul\n\nfunc broken( {\n' });
    const run = runSelection(recognised('go test ./...', repo.dir), { kind: 'all' }, repo.dir);
    assert.deepEqual(failedIds(run.report), [FAILING, 'mul'].sort());
  });
});
