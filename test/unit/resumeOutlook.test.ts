import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../src/engine/domain/plan';
import { foldEvents } from '../../src/engine/domain/projection';
import { resumeOutlook } from '../../src/engine/domain/resumeOutlook';
import { isRunOver } from '../../src/engine/domain/runState';
import { EventBuilder } from '../helpers/eventBuilder';

const plan: Plan = {
  goal: 'g',
  tasks: [
    { id: 'a', title: 'a', description: 'a', acceptance: [], dependsOn: [] },
    { id: 'b', title: 'b', description: 'b', acceptance: [], dependsOn: ['a'] },
    { id: 'c', title: 'c', description: 'c', acceptance: [], dependsOn: [] },
  ],
};

/** A run whose plan was approved: what Resume can take up. */
function approved(): EventBuilder {
  const b = new EventBuilder('r', plan);
  b.add({ type: 'plan_approved', by: 'human' });
  return b;
}

describe('resumeOutlook: Resume is offered only where it would work', () => {
  it('a run stopped mid-build works on: the interrupted task and what waits for nobody', () => {
    const b = approved();
    b.move('a', 'BUILD_STARTED');
    assert.deepEqual(resumeOutlook(foldEvents(b.events)!), { kind: 'works', tasks: 3 });
  });

  it('a task waiting for a person blocks its dependents; independent work still makes resume worth it', () => {
    const b = approved();
    b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
    assert.deepEqual(resumeOutlook(foldEvents(b.events)!), { kind: 'works', tasks: 1 });
  });

  it('when everything left waits for a person, resume would stop again at once', () => {
    const b = approved();
    b.move('a', 'BUILD_STARTED', 'AGENT_FAILED').move('b', 'DEPENDENCY_FAILED');
    b.move('c', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    assert.deepEqual(resumeOutlook(foldEvents(b.events)!), { kind: 'waitsForYou', tasks: 1 });
  });

  it('a run that failed on an engine error mid-build resumes, so it is not over (gc keeps its worktrees)', () => {
    const b = approved();
    b.move('a', 'BUILD_STARTED');
    b.add({ type: 'run_finished', status: 'failed', summary: 'engine error: boom' });
    const state = foldEvents(b.events)!;
    assert.equal(state.status, 'failed');
    assert.equal(resumeOutlook(state).kind, 'works');
    assert.equal(isRunOver(state.status), false);
  });

  it('a completed or cancelled run is over', () => {
    assert.deepEqual(
      (['completed', 'cancelled', 'needs_human', 'paused', 'failed'] as const).map(isRunOver),
      [true, true, false, false, false],
    );
  });

  it('a run whose planning failed is planned again, never resumed', () => {
    const b = new EventBuilder('r', { goal: 'g', tasks: [] });
    b.add({ type: 'run_finished', status: 'failed', summary: 'The planner gave no valid plan' });
    assert.deepEqual(resumeOutlook(foldEvents(b.events)!), { kind: 'startAgain', why: 'planning failed: there is no plan to build', withPlan: false });
  });

  it('a run cancelled before its plan was approved is started again with its plan, never resumed (the engine refuses that)', () => {
    const b = new EventBuilder('r', plan);
    b.add({ type: 'run_finished', status: 'cancelled', summary: 'cancelled before its plan was approved; nothing was built' });
    const outlook = resumeOutlook(foldEvents(b.events)!);
    assert.equal(outlook.kind, 'startAgain');
    assert.equal(outlook.kind === 'startAgain' && outlook.withPlan, true);
  });
});
