import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { applyStepFiles, StepError } from '../../src/engine/agents/scripted/applyStepFiles';
import { loadScenario, parseScenario, relativePathProblem, ScenarioError, selectStep } from '../../src/engine/agents/scripted/scenario';
import { scratchFolder } from '../helpers/fileScoped';

const { dir, write: fileWith } = scratchFolder('scenario');

function loadError(path: string): string {
  try {
    loadScenario(path);
  } catch (err) {
    assert.ok(err instanceof ScenarioError);
    return err.message;
  }
  assert.fail('expected the scenario to be rejected');
}

describe('loadScenario', () => {
  it('loads a valid scenario and fills usage defaults', () => {
    const path = fileWith('ok.json', JSON.stringify({
      defaults: { delayMs: 300, usage: { inputTokens: 1200, outputTokens: 300 }, costUsd: 0.004 },
      tasks: { t1: { actor: [{ write: { 'a.txt': 'x' } }] } },
    }));
    const scenario = loadScenario(path);
    assert.deepEqual(scenario.defaults?.usage, { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 });
    assert.deepEqual(scenario.tasks.t1?.actor, [{ write: { 'a.txt': 'x' } }]);
  });

  it('names the file and the bad field', () => {
    const path = fileWith('bad.json', JSON.stringify({ tasks: { 'task-1': { critic: [{}, { verdict: { decision: 'green', summary: 1, findings: [] } }] } } }));
    const message = loadError(path);
    assert.ok(message.includes(path), message);
    assert.match(message, /tasks\["task-1"\]\.critic\[1\]\.verdict\.summary: /);
  });

  it('rejects misspelt step fields instead of ignoring them', () => {
    const message = loadError(fileWith('typo.json', JSON.stringify({ fallback: { actor: [{ wirte: {} }] } })));
    assert.match(message, /fallback\.actor\[0\]: .*wirte/);
  });

  it('rejects paths that leave the working directory, naming them', () => {
    const message = loadError(fileWith('escape.json', JSON.stringify({
      tasks: { t: { actor: [{ patch: [{ path: '../x', find: 'a', replace: 'b' }], delete: ['/etc/passwd'] }] } },
    })));
    assert.match(message, /tasks\.t\.actor\[0\]\.patch\[0\]\.path: path "\.\.\/x" leaves the working directory/);
    assert.match(message, /tasks\.t\.actor\[0\]\.delete\[0\]: path "\/etc\/passwd" is absolute/);
  });

  it('explains a missing file and invalid JSON', () => {
    assert.match(loadError(join(dir, 'none.json')), /cannot read scenario file .*none\.json/);
    assert.match(loadError(fileWith('broken.json', '{ "tasks": ')), /broken\.json: invalid JSON/);
  });

  it('says where a file is not JSON without quoting it: a named file need not be one the caller may read', () => {
    const message = loadError(fileWith('secret.env', 'GITHUB_TOKEN=ghp_not_for_the_model\n'));
    assert.match(message, /secret\.env: invalid JSON at line 1, column 1/);
    assert.doesNotMatch(message, /GITHUB_TOKEN|ghp_/);
  });
});

describe('selectStep', () => {
  const scenario = parseScenario({
    planner: [{ text: 'plan' }],
    tasks: { t1: { actor: [{ text: 'a1' }, { text: 'a2' }], critic: [] } },
    fallback: { critic: [{ text: 'fallback review' }] },
  });

  it('indexes by attempt and repeats the last step', () => {
    assert.deepEqual([1, 2, 3, 9].map((n) => selectStep(scenario, 'actor', 't1', n)?.text), ['a1', 'a2', 'a2', 'a2']);
  });

  it('uses the fallback for unlisted tasks and empty role scripts, else nothing', () => {
    assert.equal(selectStep(scenario, 'critic', 't1', 1)?.text, 'fallback review');
    assert.equal(selectStep(scenario, 'critic', 'other', 2)?.text, 'fallback review');
    assert.equal(selectStep(scenario, 'actor', 'other', 1), undefined);
    assert.equal(selectStep(scenario, 'planner', null, 1)?.text, 'plan');
  });
});

describe('relativePathProblem', () => {
  it('accepts paths inside and rejects the rest', () => {
    assert.equal(relativePathProblem('src/a..b.ts'), undefined);
    assert.equal(relativePathProblem('./src/a.ts'), undefined);
    assert.match(relativePathProblem('src/../../x') ?? '', /leaves/);
    assert.match(relativePathProblem('C:\\x') ?? '', /absolute/);
    assert.match(relativePathProblem('') ?? '', /empty/);
  });
});

describe('applyStepFiles', () => {
  it('refuses to leave the working directory even for a step that skipped validation', () => {
    const cwd = join(dir, 'apply');
    mkdirSync(cwd);
    for (const step of [{ write: { '../out.txt': 'x' } }, { delete: ['/tmp'] }, { patch: [{ path: 'a/../../out.txt', find: 'a', replace: 'b' }] }]) {
      assert.throws(() => applyStepFiles(step, cwd, () => {}), StepError, JSON.stringify(step));
    }
    assert.equal(existsSync(join(dir, 'out.txt')), false);
  });
});
