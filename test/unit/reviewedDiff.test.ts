import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CriticVerdict } from '../../src/engine/domain/verdict';
import { reviewedRange } from '../../src/engine/run/reviewedDiff';
import { EventBuilder } from '../helpers/eventBuilder';

const c = (n: number) => String(n).repeat(40);
const verdict: CriticVerdict = { decision: 'changes_required', summary: 'fix it', findings: [] };

/** a: prepared at c1, commits c2, review 1, commits c3, review 2. */
function history(recorded: boolean) {
  const b = new EventBuilder();
  b.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/run-1/a', path: '/wt/a', baseCommit: c(1), fresh: true });
  b.add({ type: 'work_committed', taskId: 'a', attempt: 1, commit: c(2), filesChanged: ['x'] });
  const first = b.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict, blocking: 1, ...(recorded ? { base: c(1), commit: c(2) } : {}) });
  b.add({ type: 'work_committed', taskId: 'a', attempt: 2, commit: c(3), filesChanged: ['x'] });
  const second = b.add({ type: 'critic_verdict', taskId: 'a', review: 2, verdict, blocking: 0, ...(recorded ? { base: c(1), commit: c(3) } : {}) });
  return { events: b.events, first, second };
}

describe('the diff a critic review read', () => {
  it('is the range the verdict recorded', () => {
    const { events, first, second } = history(true);
    assert.deepEqual(reviewedRange(events, 'a', first.seq), { base: c(1), head: c(2), source: 'recorded', review: 1 });
    assert.deepEqual(reviewedRange(events, 'a', second.seq), { base: c(1), head: c(3), source: 'recorded', review: 2 });
  });

  it('is read back from the task’s commits before the review in an older log', () => {
    const { events, first, second } = history(false);
    // Review 1 saw the first commit, not the task's later one.
    assert.deepEqual(reviewedRange(events, 'a', first.seq), { base: c(1), head: c(2), source: 'reconstructed', review: 1 });
    assert.deepEqual(reviewedRange(events, 'a', second.seq), { base: c(1), head: c(3), source: 'reconstructed', review: 2 });
  });

  it('says nothing when the older log does not tell, or the entry is not that task’s review', () => {
    const b = new EventBuilder();
    b.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/run-1/a', path: '/wt/a', baseCommit: c(1), fresh: true });
    b.add({ type: 'task_synced', taskId: 'a', path: '/wt/a', from: c(2), integrationCommit: c(4), conflicts: [] });
    const review = b.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict, blocking: 0 });
    assert.equal(reviewedRange(b.events, 'a', review.seq), undefined, 'the sync’s merge commit is not in the log');
    assert.equal(reviewedRange(b.events, 'b', review.seq), undefined);
    assert.equal(reviewedRange(b.events, 'a', 1), undefined);
  });
});
