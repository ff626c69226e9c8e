import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IllegalTransitionError, TaskStateMachine } from '../../src/engine/domain/taskStateMachine';
import { TASK_EVENTS, TASK_STATES, type TaskEvent, type TaskState } from '../../src/engine/domain/taskStates';

/** The table as a reader expects it; any change to the machine must change this list too. */
const EXPECTED: Array<[TaskState, TaskEvent, TaskState]> = [
  ['PENDING', 'BUILD_STARTED', 'BUILDING'],
  ['PENDING', 'RESOLVE_STARTED', 'RESOLVING'],
  ['PENDING', 'DEPENDENCY_FAILED', 'SKIPPED'],
  ['PENDING', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['PENDING', 'EXCEEDED_LIMIT', 'NEEDS_HUMAN'],
  ['PENDING', 'CANCELLED', 'CANCELLED'],
  ['BUILDING', 'BUILD_FINISHED', 'GATING'],
  ['BUILDING', 'PICK_HELD', 'NEEDS_HUMAN'],
  ['RESOLVING', 'BUILD_FINISHED', 'GATING'],
  ['GATING', 'MECHANICAL_PASSED', 'CRITIC_REVIEWING'],
  ['GATING', 'MECHANICAL_FAILED', 'MECHANICAL_FAILED'],
  ['MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILDING'],
  ['CRITIC_REVIEWING', 'CRITIC_GREEN', 'GREEN'],
  ['CRITIC_REVIEWING', 'CRITIC_CHANGES_REQUIRED', 'CHANGES_REQUIRED'],
  ['CRITIC_REVIEWING', 'MESSAGE_SENT_BACK', 'CHANGES_REQUIRED'],
  ['CRITIC_REVIEWING', 'CRITIC_UNAVAILABLE', 'UNVERIFIED_BY_CRITIC'],
  ['CRITIC_REVIEWING', 'MALFORMED_GIVEUP', 'NEEDS_HUMAN'],
  ['CRITIC_REVIEWING', 'SENSITIVE_PATHS_TOUCHED', 'NEEDS_HUMAN'],
  ['CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILDING'],
  // The merge queue: GREEN is approved work waiting to merge, not done.
  ['GREEN', 'MERGE_STARTED', 'MERGING'],
  ['GREEN', 'HUMAN_SKIPPED', 'SKIPPED'],
  ['GREEN', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['UNVERIFIED_BY_CRITIC', 'MERGE_STARTED', 'MERGING'],
  ['UNVERIFIED_BY_CRITIC', 'HUMAN_ACCEPTED', 'GREEN'],
  ['UNVERIFIED_BY_CRITIC', 'HUMAN_RETRY', 'PENDING'],
  ['UNVERIFIED_BY_CRITIC', 'HUMAN_SKIPPED', 'SKIPPED'],
  ['UNVERIFIED_BY_CRITIC', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['MERGING', 'MERGE_VERIFIED', 'MERGED'],
  ['MERGING', 'MERGE_CONFLICTED', 'MERGE_CONFLICT'],
  ['MERGING', 'INTEGRATION_GATE_FAILED', 'INTEGRATION_FAILED'],
  ['MERGING', 'REQUEUED', 'GREEN'],
  ['MERGING', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['MERGE_CONFLICT', 'RESOLVE_STARTED', 'RESOLVING'],
  ['MERGE_CONFLICT', 'EXCEEDED_LIMIT', 'NEEDS_HUMAN'],
  ['MERGE_CONFLICT', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['INTEGRATION_FAILED', 'RETRY_BUILD', 'BUILDING'],
  ['INTEGRATION_FAILED', 'MERGE_CONFLICTED', 'MERGE_CONFLICT'],
  ['INTEGRATION_FAILED', 'EXCEEDED_LIMIT', 'NEEDS_HUMAN'],
  ['INTEGRATION_FAILED', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['HUMAN_RESOLVING', 'HAND_RESOLVED', 'GREEN'],
  ['HUMAN_RESOLVING', 'HUMAN_RETRY', 'PENDING'],
  ['HUMAN_RESOLVING', 'HUMAN_SKIPPED', 'SKIPPED'],
  ['NEEDS_HUMAN', 'HUMAN_ACCEPTED', 'GREEN'],
  ['NEEDS_HUMAN', 'CANCELLED', 'CANCELLED'],
  // A person works on it themselves, and hands it back to be gated and reviewed.
  ['NEEDS_HUMAN', 'HUMAN_TOOK_OVER', 'NEEDS_HUMAN'],
  ['NEEDS_HUMAN', 'HANDED_BACK', 'PENDING'],
  ['SKIPPED', 'DEPENDENCY_RETRIED', 'PENDING'],
  ['SKIPPED', 'HUMAN_RETRY', 'PENDING'],
  ['CANCELLED', 'HUMAN_RETRY', 'PENDING'],
  ['CANCELLED', 'INTERRUPTED', 'PENDING'],
  ['CANCELLED', 'REQUEUED', 'GREEN'],
];
// A person can always take over work the queue sent back, or that waits for them.
for (const from of ['MERGE_CONFLICT', 'INTEGRATION_FAILED', 'NEEDS_HUMAN'] as const) {
  EXPECTED.push([from, 'HUMAN_RETRY', 'PENDING'], [from, 'HUMAN_SKIPPED', 'SKIPPED'], [from, 'HAND_RESOLVE_STARTED', 'HUMAN_RESOLVING']);
}
const ABORTS: Array<[TaskEvent, TaskState]> = [
  ['STUCK_ABORTED', 'NEEDS_HUMAN'],
  ['AGENT_FAILED', 'NEEDS_HUMAN'],
  ['ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['EXCEEDED_LIMIT', 'NEEDS_HUMAN'],
  ['SETUP_FAILED', 'NEEDS_HUMAN'],
  ['HUMAN_STOPPED', 'NEEDS_HUMAN'],
  ['QUOTA_EXHAUSTED', 'PENDING'],
  ['INTERRUPTED', 'PENDING'],
  ['CANCELLED', 'CANCELLED'],
  ['REQUEUED', 'GREEN'],
];
for (const from of ['BUILDING', 'RESOLVING', 'GATING', 'MECHANICAL_FAILED', 'CRITIC_REVIEWING', 'CHANGES_REQUIRED'] as const) {
  for (const [event, to] of ABORTS) EXPECTED.push([from, event, to]);
}

describe('TaskStateMachine', () => {
  const expected = new Map(EXPECTED.map(([from, event, to]) => [`${from}+${event}`, to]));

  it('allows exactly the expected edges, for every (state, event) pair', () => {
    let legal = 0;
    for (const from of TASK_STATES) {
      for (const event of TASK_EVENTS) {
        const want = expected.get(`${from}+${event}`);
        if (want) {
          assert.equal(TaskStateMachine.next(from, event), want, `${from} + ${event}`);
          assert.ok(TaskStateMachine.canApply(from, event));
          legal += 1;
        } else {
          assert.throws(() => TaskStateMachine.next(from, event, 't1'), IllegalTransitionError, `${from} + ${event} must be illegal`);
          assert.equal(TaskStateMachine.canApply(from, event), false);
        }
      }
    }
    assert.equal(legal, expected.size);
    assert.equal(TaskStateMachine.edges().length, expected.size);
  });

  it('names the task, the state and the event in the error', () => {
    assert.throws(() => TaskStateMachine.next('MERGED', 'BUILD_STARTED', 'api'), /task "api".*BUILD_STARTED.*MERGED/);
  });

  it('gives MERGED no way out: merged work is done', () => {
    assert.deepEqual(TaskStateMachine.edges().filter((e) => e.from === 'MERGED'), []);
  });

  it('never leaves a task the merge queue sent back without a way forward for a person', () => {
    for (const from of ['MERGE_CONFLICT', 'INTEGRATION_FAILED', 'HUMAN_RESOLVING', 'NEEDS_HUMAN'] as const) {
      assert.ok(TaskStateMachine.canApply(from, 'HUMAN_RETRY'), from);
      assert.ok(TaskStateMachine.canApply(from, 'HUMAN_SKIPPED'), from);
    }
  });

  it('lets a human act on every NEEDS_HUMAN task', () => {
    for (const event of ['HUMAN_RETRY', 'HUMAN_ACCEPTED', 'HUMAN_SKIPPED'] as const) {
      assert.ok(TaskStateMachine.canApply('NEEDS_HUMAN', event));
    }
  });
});
