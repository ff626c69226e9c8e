import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IllegalTransitionError, TaskStateMachine } from '../../src/engine/domain/taskStateMachine';
import { TASK_EVENTS, TASK_STATES, type TaskEvent, type TaskState } from '../../src/engine/domain/taskStates';

/** The table as a reader expects it; any change to the machine must change this list too. */
const EXPECTED: Array<[TaskState, TaskEvent, TaskState]> = [
  ['PENDING', 'BUILD_STARTED', 'BUILDING'],
  ['PENDING', 'DEPENDENCY_FAILED', 'SKIPPED'],
  ['PENDING', 'ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['PENDING', 'EXCEEDED_LIMIT', 'NEEDS_HUMAN'],
  ['PENDING', 'CANCELLED', 'CANCELLED'],
  ['BUILDING', 'BUILD_FINISHED', 'GATING'],
  ['GATING', 'MECHANICAL_PASSED', 'CRITIC_REVIEWING'],
  ['GATING', 'MECHANICAL_FAILED', 'MECHANICAL_FAILED'],
  ['MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILDING'],
  ['CRITIC_REVIEWING', 'CRITIC_GREEN', 'GREEN'],
  ['CRITIC_REVIEWING', 'CRITIC_CHANGES_REQUIRED', 'CHANGES_REQUIRED'],
  ['CRITIC_REVIEWING', 'CRITIC_UNAVAILABLE', 'UNVERIFIED_BY_CRITIC'],
  ['CRITIC_REVIEWING', 'MALFORMED_GIVEUP', 'NEEDS_HUMAN'],
  ['CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILDING'],
  ['NEEDS_HUMAN', 'HUMAN_RETRY', 'PENDING'],
  ['NEEDS_HUMAN', 'HUMAN_ACCEPTED', 'GREEN'],
  ['NEEDS_HUMAN', 'HUMAN_SKIPPED', 'SKIPPED'],
  ['NEEDS_HUMAN', 'CANCELLED', 'CANCELLED'],
  ['UNVERIFIED_BY_CRITIC', 'HUMAN_ACCEPTED', 'GREEN'],
  ['UNVERIFIED_BY_CRITIC', 'HUMAN_RETRY', 'PENDING'],
  ['UNVERIFIED_BY_CRITIC', 'HUMAN_SKIPPED', 'SKIPPED'],
  ['SKIPPED', 'DEPENDENCY_RETRIED', 'PENDING'],
  ['SKIPPED', 'HUMAN_RETRY', 'PENDING'],
  ['CANCELLED', 'HUMAN_RETRY', 'PENDING'],
  ['CANCELLED', 'INTERRUPTED', 'PENDING'],
];
const ABORTS: Array<[TaskEvent, TaskState]> = [
  ['STUCK_ABORTED', 'NEEDS_HUMAN'],
  ['AGENT_FAILED', 'NEEDS_HUMAN'],
  ['ENGINE_ERROR', 'NEEDS_HUMAN'],
  ['EXCEEDED_LIMIT', 'NEEDS_HUMAN'],
  ['QUOTA_EXHAUSTED', 'PENDING'],
  ['INTERRUPTED', 'PENDING'],
  ['CANCELLED', 'CANCELLED'],
];
for (const from of ['BUILDING', 'GATING', 'MECHANICAL_FAILED', 'CRITIC_REVIEWING', 'CHANGES_REQUIRED'] as const) {
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
    assert.throws(() => TaskStateMachine.next('GREEN', 'BUILD_STARTED', 'api'), /task "api".*BUILD_STARTED.*GREEN/);
  });

  it('gives GREEN no way out', () => {
    assert.deepEqual(TaskStateMachine.edges().filter((e) => e.from === 'GREEN'), []);
  });

  it('lets a human act on every NEEDS_HUMAN task', () => {
    for (const event of ['HUMAN_RETRY', 'HUMAN_ACCEPTED', 'HUMAN_SKIPPED'] as const) {
      assert.ok(TaskStateMachine.canApply('NEEDS_HUMAN', event));
    }
  });
});
