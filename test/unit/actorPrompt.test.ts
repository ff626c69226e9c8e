import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorPrompt } from '../../src/engine/loop/prompts';
import { EventBuilder, TWO_TASK_PLAN } from '../helpers/eventBuilder';
import { BROKEN_ON_BASE, baselineResult, command, testRef } from '../helpers/gateEvents';
import { storedRun } from '../helpers/storedRun';

const NEW_FAILURE = testRef('counts words split by tabs', 'test/wordCount.test.js');
const task = TWO_TASK_PLAN.tasks[0]!;

/** Task a's first gate failed: one test it broke, one already failing on main, a lint made advisory, a typecheck whose only failure is the base's. */
function failedGate() {
  const b = new EventBuilder('r');
  b.add({ type: 'plan_approved', by: 'human' });
  b.add(baselineResult('a'.repeat(40)));
  b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory' });
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
  b.add({
    type: 'gate_result',
    taskId: 'a',
    attempt: 1,
    passed: false,
    commands: [
      command('npm test', 1, { failed: [BROKEN_ON_BASE, NEW_FAILURE], alreadyFailing: [BROKEN_ON_BASE], newFailures: [NEW_FAILURE] }, { failure: { excerpt: 'not ok 3 - counts words split by tabs', shape: 'tap' } }),
      command('npm run lint', 1, undefined, { advisory: true, output: 'src/old.js: 3 problems\n' }),
      command('npm run typecheck', 1, { runner: 'tsc', failed: [BROKEN_ON_BASE], alreadyFailing: [BROKEN_ON_BASE] }, { output: 'old.ts(1,1): error\n' }),
    ],
  });
  b.move('a', 'MECHANICAL_FAILED');
  return storedRun(b).tasks.a!.lastGate!;
}

describe('the actor’s prompt after a failed gate: only what its change broke is its job', () => {
  it('names the new failures as the job, and says plainly that the ones already failing on main and the advisory command are not theirs', () => {
    const prompt = actorPrompt(task, 'two tasks', { kind: 'gate', gate: failedGate() });
    assert.match(prompt, /Your job in `npm test`: these tests fail with your change and passed without it:\n- counts words split by tabs \(test\/wordCount\.test\.js\)\n\n\$ npm test {2}\(exit 1\)\nnot ok 3 - counts words split by tabs/);
    assert.match(prompt, /`npm test`: these tests already failed before your change, on the base: parses dates in the local zone \(test\/all\.test\.js\)\. They are not yours: leave them as they are \(do not fix, skip or delete them\)/);
    assert.match(prompt, /`npm run lint` fails on the base too; the user made it advisory for this run: it is not your job\./);
    assert.doesNotMatch(prompt, /\$ npm run lint|src\/old\.js/, 'the advisory command’s output is not sent as work');
    assert.doesNotMatch(prompt, /\$ npm run typecheck|old\.ts/, 'a command whose only failures are the base’s is not sent as work');
    const job = prompt.slice(prompt.indexOf('Your job in'), prompt.indexOf('$ npm test'));
    assert.doesNotMatch(job, /parses dates/, 'the already-failing test is never in the job');
  });

  it('a gate no runner explained stays as it was: the failing command and its output', () => {
    const prompt = actorPrompt(task, 'two tasks', { kind: 'gate', gate: { passed: false, at: '2026-01-01T00:00:00Z', commands: [command('make check', 2, undefined, { output: 'boom\n' })] } });
    assert.match(prompt, /\$ make check {2}\(exit 2\)\nboom/);
    assert.doesNotMatch(prompt, /not yours|Your job/);
  });
});
