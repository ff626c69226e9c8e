import { stripVTControlCharacters } from 'node:util';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertRelatedRun, assertRerunFailsAgain, assertWholeRunFails, assertWholeRunPasses } from '../../../helpers/runnerChecks';
import { failedIds, makeRunnerRepo, recognised, suiteProjects, wholeRun, type RunnerRepo } from '../../../helpers/runnerFixture';

const ADD_TEST = `import { describe, test, expect } from 'vitest';
import { add } from '../src/add.js';
describe('add', () => {
  test('passes', () => expect(add(1, 1)).toBe(2));
  test('fails', () => expect(add(1, 1)).toBe(3));
  test.skip('skipped', () => {});
});
`;
const MUL_TEST = `import { test, expect } from 'vitest';
import { mul } from '../src/mul.js';
test('mul works', () => expect(mul(2, 2)).toBe(4));
`;

function vitestProject(): RunnerRepo {
  return makeRunnerRepo({
    '.gitignore': 'node_modules\n.vite\n',
    'package.json': JSON.stringify({ name: 'fx', private: true, type: 'module', scripts: { test: 'vitest run' } }),
    // vitest keeps its cache in node_modules/.vite: here the symlinked node_modules is this project's own.
    'vitest.config.mjs': "export default { cacheDir: '.vite' };\n",
    'src/add.js': 'export const add = (a, b) => a + b;\n',
    'src/mul.js': 'export const mul = (a, b) => a * b;\n',
    'test/add.test.js': ADD_TEST,
    'test/mul.test.js': MUL_TEST,
  });
}

const FAILING = 'test/add.test.js::add › fails';

describe('vitest as a gate runner', () => {
  const { project, projectElsewhere } = suiteProjects(vitestProject);

  it('is recognised from its command and from npm test; its whole run fails as the command does and reports exactly the failing test', () => {
    const repo = project();
    for (const command of ['npx vitest run', 'npm test']) {
      const { runner, run } = assertWholeRunFails(command, repo.dir, { runner: 'vitest', failed: [FAILING], passed: 2, skipped: 1 });
      assert.deepEqual([...runner.selections].sort(), ['all', 'related', 'tests']);
      // Colour depends on the machine (CI=true turns vitest's on): the words are what a person reads.
      assert.match(stripVTControlCharacters(run.output), /FAIL {2}test\/add\.test\.js > add > fails/, "vitest's own output still prints");
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

  it('runs by `vitest related` the tests of a changed module and not the others', () => {
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
