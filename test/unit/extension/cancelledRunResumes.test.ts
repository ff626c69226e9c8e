import '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resumedByDecision } from '../../../src/engine/domain/humanActions';
import { foldEvents } from '../../../src/engine/domain/projection';
import { cancelledRunResumes } from '../../../src/extension/resumeMessage';
import { EventBuilder } from '../../helpers/eventBuilder';

const THREE_TASKS = {
  goal: 'three tasks',
  tasks: ['a', 'b', 'c'].map((id) => ({ id, title: `Task ${id}`, description: id, acceptance: [], dependsOn: [] })),
};

/** a and b were stopped by a cancel (a while it built, b before it started); c had failed and needs you. */
function cancelledRun(): EventBuilder {
  const b = new EventBuilder('run-1', THREE_TASKS);
  b.add({ type: 'plan_approved', by: 'human' });
  b.move('c', 'BUILD_STARTED', 'AGENT_FAILED');
  b.move('a', 'BUILD_STARTED', 'CANCELLED');
  b.move('b', 'CANCELLED');
  b.add({ type: 'run_finished', status: 'cancelled', summary: 'cancelled by the user' });
  return b;
}

describe('a decision that resumes a cancelled run says so first', () => {
  it('names the other cancelled tasks that start again with the decided one', () => {
    const state = foldEvents(cancelledRun().events)!;
    assert.deepEqual(resumedByDecision(state, 'a'), { alsoTakenUp: ['b'] });
    assert.equal(cancelledRunResumes('retry', 'a', ['b']), 'The run was cancelled. Retrying "a" resumes it, and its other cancelled task (b) starts again too.');
    assert.deepEqual(resumedByDecision(state, 'c'), { alsoTakenUp: ['a', 'b'] }, 'deciding on the task that needed you drives the run on too');
    assert.equal(cancelledRunResumes('skip', 'c', ['a', 'b']), 'The run was cancelled. Skipping "c" resumes it, and its other cancelled tasks (a, b) start again too.');
  });

  it('says nothing for a run that was not cancelled, where going on is what a decision is for', () => {
    const b = new EventBuilder('run-2', THREE_TASKS);
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('c', 'BUILD_STARTED', 'AGENT_FAILED');
    b.add({ type: 'run_finished', status: 'needs_human', summary: 'c needs you' });
    assert.equal(resumedByDecision(foldEvents(b.events)!, 'c'), undefined);
  });
});
