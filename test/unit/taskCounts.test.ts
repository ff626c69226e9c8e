import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../src/engine/domain/plan';
import { foldEvents } from '../../src/engine/domain/projection';
import { countTasks } from '../../src/engine/domain/taskCounts';
import { EventBuilder } from '../helpers/eventBuilder';

const chain: Plan = {
  goal: 'chain',
  tasks: ['a', 'b', 'c'].map((id, i) => ({ id, title: id, description: id, acceptance: [], dependsOn: i ? [['a', 'b'][i - 1]!] : [] })),
};

describe('countTasks: what "done" means in every view', () => {
  it('approved work in the merge queue is not done; merged work is', () => {
    const b = new EventBuilder('r', chain);
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    assert.equal(countTasks(foldEvents(b.events)!).done, 0);
    b.move('a', 'MERGE_STARTED', 'MERGE_VERIFIED');
    assert.deepEqual(countTasks(foldEvents(b.events)!), { total: 3, done: 1, merged: 1, skipped: 0 });
  });

  it('a task skipped because its dependency waits for a person is not done; skipped after a person skipped it, it is', () => {
    const b = new EventBuilder('r', chain);
    b.move('a', 'BUILD_STARTED', 'AGENT_FAILED');
    b.move('b', 'DEPENDENCY_FAILED').move('c', 'DEPENDENCY_FAILED');
    assert.deepEqual(countTasks(foldEvents(b.events)!), { total: 3, done: 0, merged: 0, skipped: 2 });
    b.move('a', 'HUMAN_SKIPPED');
    assert.deepEqual(countTasks(foldEvents(b.events)!), { total: 3, done: 3, merged: 0, skipped: 3 });
  });
});
