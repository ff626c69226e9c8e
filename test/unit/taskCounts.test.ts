import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../src/engine/domain/plan';
import { foldEvents } from '../../src/engine/domain/projection';
import { countSentence, countTasks, countWords } from '../../src/engine/domain/taskCounts';
import { EventBuilder } from '../helpers/eventBuilder';

const chain: Plan = {
  goal: 'chain',
  tasks: ['a', 'b', 'c'].map((id, i) => ({ id, title: id, description: id, acceptance: [], dependsOn: i ? [['a', 'b'][i - 1]!] : [] })),
};

describe('countTasks: the one count every view shows', () => {
  it('approved work in the merge queue is not merged yet; merged work is', () => {
    const b = new EventBuilder('r', chain);
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    assert.equal(countTasks(foldEvents(b.events)!).merged, 0);
    b.move('a', 'MERGE_STARTED', 'MERGE_VERIFIED');
    assert.deepEqual(countTasks(foldEvents(b.events)!), { total: 3, merged: 1, skipped: 0 });
  });

  it('a skipped task is counted as skipped, never with the merged ones: the header and the end of the run say the same', () => {
    const b = new EventBuilder('r', chain);
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    b.move('b', 'BUILD_STARTED', 'AGENT_FAILED', 'HUMAN_SKIPPED');
    b.move('c', 'DEPENDENCY_FAILED');
    const counts = countTasks(foldEvents(b.events)!);
    assert.deepEqual(counts, { total: 3, merged: 1, skipped: 2 });
    assert.equal(countWords(counts), '1/3 merged, 2 skipped');
    assert.equal(countSentence(counts), '1 of 3 tasks merged, 2 skipped');
    assert.equal(countWords({ total: 3, merged: 3, skipped: 0 }), '3/3 merged', 'nothing skipped, nothing said about it');
  });
});
