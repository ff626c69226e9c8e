import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertRelatedRun, assertRerunFailsAgain, assertWholeRunFails, assertWholeRunPasses } from '../../../helpers/runnerChecks';
import { failedIds, makeRunnerRepo, recognised, suiteProjects, wholeRun, type RunnerRepo } from '../../../helpers/runnerFixture';

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
  const { project, projectElsewhere } = suiteProjects(jestProject);

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['npx jest', 'npm test']) {
      const { runner, run } = assertWholeRunFails(command, repo.dir, { runner: 'jest', failed: [FAILING], passed: 2, skipped: 1 });
      assert.deepEqual([...runner.selections].sort(), ['all', 'related', 'tests']);
      assert.match(run.output, /● add › fails/, "jest's own output still prints");
    }
  });

  it('passes when the command passes', () => {
    const repo = project();
    repo.write({ 'test/add.test.js': ADD_TEST.replace('toBe(3)', 'toBe(2)') });
    assertWholeRunPasses('npm test', repo.dir);
  });

  it('names the failing test the same in another checkout of the repository', () => {
    assert.deepEqual(failedIds(wholeRun('npm test', projectElsewhere().dir).report), [FAILING]);
  });

  it('reruns only the named test', () => {
    const rerun = assertRerunFailsAgain('npm test', project().dir, [FAILING]);
    assert.equal(rerun.report?.passed, 0, 'no other test ran');
  });

  it('runs by --findRelatedTests the tests of a changed module and not the others', () => {
    const repo = project();
    const runner = recognised('npm test', repo.dir);
    assertRelatedRun(runner, repo.dir, ['src/mul.js'], { passed: 1, failed: [] });
    assertRelatedRun(runner, repo.dir, ['src/add.js'], { passed: 1, failed: [FAILING] });
  });

  it('counts a test file that does not load as a failed test named by its file', () => {
    const repo = project();
    repo.write({ 'test/broken.test.js': "test('never', () => {\n" });
    assert.deepEqual(failedIds(wholeRun('npm test', repo.dir).report), [FAILING, 'test/broken.test.js'].sort());
  });
});
