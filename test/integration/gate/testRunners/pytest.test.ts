import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { assertRerunFailsAgain, assertWholeRunFails, assertWholeRunPasses } from '../../../helpers/runnerChecks';
import { failedIds, makeRunnerRepo, recognised, runSelection, suiteProjects, wholeRun, type RunnerRepo } from '../../../helpers/runnerFixture';

const ADD_TEST = `import pytest
from add import add

class TestAdd:
    def test_passes(self):
        assert add(1, 1) == 2

    def test_fails(self):
        assert add(1, 1) == 3

    @pytest.mark.skip(reason="later")
    def test_skipped(self):
        pass
`;

function pytestProject(): RunnerRepo {
  return makeRunnerRepo({
    '.gitignore': 'node_modules\n__pycache__\n.pytest_cache\n',
    'package.json': JSON.stringify({ name: 'fx', private: true, scripts: { test: 'python3 -m pytest -q' } }),
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'src/add.py': 'def add(a, b):\n    return a + b\n',
    'src/mul.py': 'def mul(a, b):\n    return a * b\n',
    'tests/test_add.py': ADD_TEST,
    'tests/test_mul.py': 'from mul import mul\n\ndef test_mul():\n    assert mul(2, 2) == 4\n',
  });
}

const FAILING = 'tests/test_add.py::TestAdd::test_fails';
const pytestAvailable = spawnSync('python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' }).status === 0;

describe('pytest as a gate runner', { skip: pytestAvailable ? false : 'pytest is not installed (python3 -m pytest)' }, () => {
  const { project, projectElsewhere } = suiteProjects(pytestProject);

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['python3 -m pytest -q', 'pytest', 'npm test']) {
      const { runner, run } = assertWholeRunFails(command, repo.dir, { runner: 'pytest', failed: [FAILING], passed: 2, skipped: 1 });
      // Never by its own means: finding pytest-testmon would run the checkout's interpreter unconfined.
      assert.equal(runner.selections.has('related'), false);
      assert.match(run.output, /FAILED tests\/test_add\.py::TestAdd::test_fails/, "pytest's own output still prints");
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'tests/test_add.py': ADD_TEST.replace('add(1, 1) == 3', 'add(1, 1) == 2') });
    assertWholeRunPasses('npm test', repo.dir);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    assert.deepEqual(failedIds(wholeRun('pytest', projectElsewhere().dir).report), [FAILING]);
  });

  it('reruns only the named test, by its node id', () => {
    const rerun = assertRerunFailsAgain('python3 -m pytest -q', project().dir, [FAILING]);
    assert.match(rerun.command.command, /tests\/test_add\.py::TestAdd::test_fails$/);
    assert.deepEqual({ passed: rerun.report?.passed, skipped: rerun.report?.skipped }, { passed: 0, skipped: 0 }, 'no other test ran');
  });

  it('counts a test file that does not import as a failed test named by its file', () => {
    const repo = project();
    repo.write({ 'tests/test_broken.py': 'def test_never(:\n' });
    const run = wholeRun('python3 -m pytest -q', repo.dir);
    assert.notEqual(run.exitCode, 0);
    // pytest stops at a collection error before running any test.
    assert.deepEqual(failedIds(run.report), ['tests/test_broken.py']);
  });

  it('names tests from the top of the repository when it runs in a folder below', () => {
    const repo = project();
    repo.write({ 'py/pytest.ini': '[pytest]\npythonpath = lib\n', 'py/lib/sub.py': 'def sub(a, b):\n    return a - b\n', 'py/tests/test_sub.py': 'from sub import sub\n\ndef test_sub():\n    assert sub(2, 1) == 2\n' });
    const cwd = `${repo.dir}/py/tests`;
    const run = wholeRun('python3 -m pytest', cwd);
    assert.deepEqual(failedIds(run.report), ['py/tests/test_sub.py::test_sub']);
    const rerun = runSelection(recognised('python3 -m pytest', cwd), { kind: 'tests', tests: run.report!.failed }, cwd);
    assert.deepEqual(failedIds(rerun.report), ['py/tests/test_sub.py::test_sub']);
  });
});
