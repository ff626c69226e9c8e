import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { assertRelatedRun, assertRerunFailsAgain, assertWholeRunFails, assertWholeRunPasses } from '../../../helpers/runnerChecks';
import { failedIds, makeRunnerRepo, recognised, suiteProjects, wholeRun, type RunnerRepo } from '../../../helpers/runnerFixture';

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
  const { project, projectElsewhere } = suiteProjects(goProject);

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['go test ./...', 'npm test']) {
      const { runner, run } = assertWholeRunFails(command, repo.dir, { runner: 'go test', failed: [FAILING], passed: 3, skipped: 1 });
      assert.deepEqual([...runner.selections].sort(), ['all', 'related', 'tests']);
      assert.match(run.output, /--- FAIL: TestAddFails/, "go's own words are printed from its -json events");
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'add/add_test.go': ADD_TEST.replace('Add(1, 1) != 3', 'Add(1, 1) != 2') });
    assertWholeRunPasses('go test ./...', repo.dir);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    assert.deepEqual(failedIds(wholeRun('go test ./...', projectElsewhere().dir).report), [FAILING]);
  });

  it('reruns only the named test, in its package', () => {
    const rerun = assertRerunFailsAgain('go test ./...', project().dir, [FAILING]);
    assert.deepEqual({ passed: rerun.report?.passed, skipped: rerun.report?.skipped }, { passed: 0, skipped: 0 }, 'no other test ran');
  });

  it('runs the packages of the changed files and those that import them, and not the others', () => {
    const repo = project();
    const runner = recognised('go test ./...', repo.dir);
    assertRelatedRun(runner, repo.dir, ['mul/mul.go'], { passed: 1, failed: [] });
    assertRelatedRun(runner, repo.dir, ['add/add.go'], { passed: 2, failed: [FAILING] }, 'add and user, which imports it');
  });

  it('counts a package that does not build as a failed test named by its folder', () => {
    const repo = project();
    repo.write({ 'mul/mul_test.go': 'package mul\n\nfunc broken( {\n' });
    assert.deepEqual(failedIds(wholeRun('go test ./...', repo.dir).report), [FAILING, 'mul'].sort());
  });
});
