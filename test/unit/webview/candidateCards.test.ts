import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../../src/engine/domain/projection';
import type { GateCommandResult } from '../../../src/engine/domain/events';
import { candidateCards, candidateChoiceRefusal } from '../../../src/webview/runView/candidateCards';
import { EventBuilder } from '../../helpers/eventBuilder';

const command = (cmd: string, exitCode: number): GateCommandResult => ({ command: cmd, exitCode, timedOut: false, durationMs: 10, output: '' });

/**
 * Task a ran as three candidates: 1 failed `npm test`, 2 and 3 passed, the critic picked 3; the task
 * then stops where `end` leaves it: needing you after the pick's review, at work, or with the pick held for you.
 */
function threeCandidates(end: 'needsYou' | 'building' | 'held') {
  const run = new EventBuilder();
  run.move('a', 'BUILD_STARTED');
  for (const n of [1, 2, 3]) {
    run.add({ type: 'candidate_started', taskId: 'a', candidate: n, agent: 'scripted', ...(n === 2 ? { model: 'fast' } : {}), branch: `taskloom/run-1/@candidates/a/${n}`, path: `/wt/@candidates/a-${n}`, baseCommit: 'b'.repeat(40) });
  }
  run.add({ type: 'candidate_finished', taskId: 'a', candidate: 1, passed: false, commands: [command('npm run lint', 0), command('npm test', 1)], commit: '1'.repeat(40), filesChanged: ['src/a.ts'] });
  run.add({ type: 'candidate_finished', taskId: 'a', candidate: 2, passed: true, commands: [command('npm test', 0)], commit: '2'.repeat(40), filesChanged: ['src/a.ts', 'test/a.test.ts'] });
  run.add({ type: 'candidate_finished', taskId: 'a', candidate: 3, passed: true, commands: [command('npm test', 0)], commit: '3'.repeat(40), filesChanged: ['src/b.ts'] });
  run.add({ type: 'candidate_skipped', taskId: 'a', candidate: 4, reason: 'the run budget would be overrun' });
  run.add({ type: 'candidate_picked', taskId: 'a', candidate: 3, by: 'critic', reasons: 'Covers every acceptance line.\nSmallest change.', passed: [2, 3] });
  if (end === 'held') run.move('a', 'PICK_HELD');
  if (end === 'needsYou') run.move('a', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_CHANGES_REQUIRED', 'EXCEEDED_LIMIT');
  return foldEvents(run.events)!.tasks.a!;
}

describe('candidate cards of the run view', () => {
  it('show each candidate’s builder, gate with its failing command, files, and the critic’s pick with its reasons', () => {
    const cards = candidateCards(threeCandidates('needsYou'));
    assert.deepEqual(
      cards.map((c) => [c.candidate, c.builtBy, c.gate, c.gateLine, c.filesChanged]),
      [
        [1, 'scripted', 'failed', 'gate failed: `npm test` exited 1', ['src/a.ts']],
        [2, 'scripted (fast)', 'passed', 'gate passed', ['src/a.ts', 'test/a.test.ts']],
        [3, 'scripted', 'passed', 'gate passed', ['src/b.ts']],
      ],
    );
    assert.deepEqual(cards[2]!.pick, { by: 'the critic', reasons: 'Covers every acceptance line.\nSmallest change.' });
    assert.deepEqual(cards.map((c) => c.reachable), [true, true, false], 'the others stay on their branches until discard');
    assert.equal(cards[0]!.branch, 'taskloom/run-1/@candidates/a/1');
  });

  it('open "Choose this one" on every candidate with work while the task waits for you', () => {
    const task = threeCandidates('needsYou');
    assert.equal(candidateChoiceRefusal(task), undefined);
    assert.deepEqual(candidateCards(task).map((c) => c.chooseRefusal), [undefined, undefined, undefined]);
  });

  it('offer "Go on with the pick" on the pick while it is held for you, and "Choose this one" on the others', () => {
    assert.deepEqual(candidateCards(threeCandidates('held')).map((c) => [c.candidate, c.goOn, c.chooseRefusal]), [[1, undefined, undefined], [2, undefined, undefined], [3, true, undefined]]);
    assert.deepEqual(candidateCards(threeCandidates('needsYou')).map((c) => c.goOn), [undefined, undefined, undefined], 'a pick already reviewed is not held');
  });

  it('close it, saying why, while the task is at work', () => {
    const task = threeCandidates('building');
    const refusal = candidateChoiceRefusal(task);
    assert.match(refusal ?? '', /building: choose once it waits for you/);
    assert.deepEqual(candidateCards(task).map((c) => c.chooseRefusal), [refusal, refusal, refusal]);
  });

  it('has no cards for a task that ran as one try', () => {
    const run = new EventBuilder();
    run.move('a', 'BUILD_STARTED');
    assert.deepEqual(candidateCards(foldEvents(run.events)!.tasks.a!), []);
  });
});
