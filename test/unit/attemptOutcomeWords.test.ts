import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../src/engine/domain/projection';
import { attemptOutcomeWords } from '../../src/engine/domain/stateWords';
import { EventBuilder } from '../helpers/eventBuilder';

describe('how an attempt ended, as the tree and the Transcript tab head it', () => {
  it('an attempt the critic approved reads "approved (why)", also once its task is merged: never the task state run into the reason', () => {
    const b = new EventBuilder();
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    const [attempt] = foldEvents(b.events)!.tasks.a!.attempts;
    assert.equal(attemptOutcomeWords(attempt!.outcome!), 'approved (critic_green for test)');
  });

  it('a failed gate and a stop for a person say so, the reason in brackets', () => {
    assert.equal(attemptOutcomeWords({ state: 'MECHANICAL_FAILED', reason: '`npm test` exited 1' }), 'gate failed (`npm test` exited 1)');
    assert.equal(attemptOutcomeWords({ state: 'NEEDS_HUMAN', reason: 'the agent crashed' }), 'stopped for you (the agent crashed)');
    assert.equal(attemptOutcomeWords({ state: 'CANCELLED', reason: '' }), 'cancelled');
  });
});
