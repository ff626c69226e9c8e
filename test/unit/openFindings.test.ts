import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../src/engine/domain/projection';
import { openFindingsOf } from '../../src/extension/openFindings';
import { EventBuilder } from '../helpers/eventBuilder';

/** A run whose task `a` the critic sent back with one finding on a file, until it needs you. */
function runNeedingYou(): EventBuilder {
  const run = new EventBuilder();
  run.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
  const finding = { file: 'src/new.ts', line: 4, severity: 'major', category: 'correctness', message: 'off by one' } as const;
  run.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict: { decision: 'changes_required', summary: 'no', findings: [finding] }, blocking: 1 });
  run.move('a', 'CRITIC_CHANGES_REQUIRED');
  return run;
}

const messages = (run: EventBuilder) => openFindingsOf(foldEvents(run.events)!).map((f) => f.message);

describe('the critic findings still open in a run', () => {
  it('are shown while the actor reworks them and while the task needs you', () => {
    const run = runNeedingYou();
    assert.deepEqual(messages(run), ['off by one'], 'changes required');
    run.move('a', 'RETRY_BUILD');
    assert.deepEqual(messages(run), ['off by one'], 'the actor is on it');
    run.move('a', 'EXCEEDED_LIMIT');
    assert.deepEqual(messages(run), ['off by one'], 'needs you');
  });

  it('go when you decide: retried, accepted or skipped', () => {
    for (const decision of ['HUMAN_RETRY', 'HUMAN_ACCEPTED', 'HUMAN_SKIPPED'] as const) {
      const run = runNeedingYou().move('a', 'RETRY_BUILD', 'EXCEEDED_LIMIT', decision);
      assert.deepEqual(messages(run), [], decision);
    }
    // A retried task that builds again is working from your note, not from the old review.
    assert.deepEqual(messages(runNeedingYou().move('a', 'RETRY_BUILD', 'EXCEEDED_LIMIT', 'HUMAN_RETRY', 'BUILD_STARTED')), []);
  });

  it('go when the run is over', () => {
    const run = runNeedingYou().move('a', 'RETRY_BUILD', 'EXCEEDED_LIMIT');
    run.add({ type: 'run_finished', status: 'cancelled', summary: 'cancelled' });
    assert.deepEqual(messages(run), []);
  });
});
