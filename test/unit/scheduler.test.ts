import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IN_FLIGHT_STATES, type TaskState } from '../../src/engine/domain/taskStates';
import {
  findBlockedTasks,
  findRevivableTasks,
  pickTasksToStart,
  type SchedulableTask,
} from '../../src/engine/schedule/scheduler';

/** `tasks('a', 'b:a', 'c:a,b')` → a; b depends on a; c on a and b. All PENDING unless set. */
function tasks(...specs: string[]): SchedulableTask[] {
  return specs.map((spec) => {
    const [id, deps] = spec.split(':');
    return { id: id!, dependsOn: deps ? deps.split(',') : [], state: 'PENDING' as TaskState };
  });
}

function withStates(list: SchedulableTask[], states: Record<string, TaskState>): SchedulableTask[] {
  return list.map((t) => ({ ...t, state: states[t.id] ?? t.state }));
}

const noChains = new Map<string, number>();

describe('pickTasksToStart', () => {
  test('starts ready tasks up to maxParallel, in plan order when chains tie', () => {
    assert.deepEqual(pickTasksToStart(tasks('a', 'b', 'c', 'd'), 2, noChains), ['a', 'b']);
    assert.deepEqual(pickTasksToStart(tasks('a', 'b', 'c', 'd'), 10, noChains), ['a', 'b', 'c', 'd']);
  });

  test('in-flight tasks use up slots, whatever in-flight state they are in', () => {
    for (const busy of IN_FLIGHT_STATES) {
      const list = withStates(tasks('x', 'a', 'b', 'c'), { x: busy });
      assert.deepEqual(pickTasksToStart(list, 2, noChains), ['a'], busy);
    }
    const full = withStates(tasks('x', 'y', 'a'), { x: 'BUILDING', y: 'CRITIC_REVIEWING' });
    assert.deepEqual(pickTasksToStart(full, 2, noChains), []);
    assert.deepEqual(pickTasksToStart(full, 1, noChains), [], 'more in flight than allowed starts nothing');
  });

  test('settled tasks do not use up slots', () => {
    const list = withStates(tasks('g', 'm', 'n', 's', 'a', 'b'), { g: 'GREEN', m: 'MERGED', n: 'NEEDS_HUMAN', s: 'SKIPPED' });
    assert.deepEqual(pickTasksToStart(list, 2, noChains), ['a', 'b']);
  });

  test('longest remaining chain first, ties in plan order', () => {
    const chains = new Map([
      ['a', 1],
      ['b', 3],
      ['c', 2],
      ['d', 3],
    ]);
    assert.deepEqual(pickTasksToStart(tasks('a', 'b', 'c', 'd'), 3, chains), ['b', 'd', 'c']);
    assert.deepEqual(pickTasksToStart(tasks('a', 'b', 'c', 'd'), 1, chains), ['b']);
  });

  test('only starts tasks whose dependencies are all merged: approved work still in the queue is not built on', () => {
    const base = tasks('dep', 'other', 't:dep,other');
    const blockers: TaskState[] = ['PENDING', 'BUILDING', 'GATING', 'CHANGES_REQUIRED', 'GREEN', 'UNVERIFIED_BY_CRITIC', 'MERGING', 'MERGE_CONFLICT', 'NEEDS_HUMAN', 'SKIPPED', 'CANCELLED'];
    for (const state of blockers) {
      const list = withStates(base, { dep: state, other: 'MERGED' });
      assert.equal(pickTasksToStart(list, 5, noChains).includes('t'), false, `dependency ${state}`);
    }
    const list = withStates(base, { dep: 'MERGED', other: 'MERGED' });
    assert.deepEqual(pickTasksToStart(list, 5, noChains), ['t']);
  });

  test('work the merge queue sent back goes first, and a task waiting for an overlap does not start', () => {
    const list = withStates(tasks('a', 'b', 'c', 'd'), { c: 'MERGE_CONFLICT', d: 'INTEGRATION_FAILED' });
    assert.deepEqual(pickTasksToStart(list, 3, noChains), ['c', 'd', 'a']);
    assert.deepEqual(pickTasksToStart(tasks('a', 'b'), 2, noChains, new Set(['a'])), ['b']);
  });

  test('a dependency missing from the list is never satisfied', () => {
    assert.deepEqual(pickTasksToStart(tasks('a:ghost', 'b'), 5, noChains), ['b']);
  });

  test('only PENDING tasks are started', () => {
    const list = withStates(tasks('a', 'b', 'c', 'd'), { a: 'MERGED', b: 'SKIPPED', c: 'CANCELLED' });
    assert.deepEqual(pickTasksToStart(list, 5, noChains), ['d']);
  });

  test('maxParallel below 1 is a bug, not a pause', () => {
    for (const bad of [0, -1, Number.NaN]) assert.throws(() => pickTasksToStart(tasks('a'), bad, noChains), RangeError);
  });
});

describe('findBlockedTasks', () => {
  test('blocks a chain transitively and names the task that ended badly', () => {
    const list = withStates(tasks('a', 'b:a', 'c:b', 'd'), { a: 'NEEDS_HUMAN' });
    assert.deepEqual(findBlockedTasks(list), [
      { taskId: 'b', blockedBy: 'a' },
      { taskId: 'c', blockedBy: 'a' },
    ]);
  });

  test('every dead-end state blocks; in-flight, pending and green ones do not', () => {
    for (const state of ['NEEDS_HUMAN', 'HUMAN_RESOLVING', 'SKIPPED', 'CANCELLED'] as const) {
      assert.deepEqual(findBlockedTasks(withStates(tasks('a', 'b:a'), { a: state })), [{ taskId: 'b', blockedBy: 'a' }], state);
    }
    for (const state of ['PENDING', 'BUILDING', 'MECHANICAL_FAILED', 'GREEN', 'UNVERIFIED_BY_CRITIC', 'MERGING', 'MERGE_CONFLICT', 'INTEGRATION_FAILED', 'MERGED'] as const) {
      assert.deepEqual(findBlockedTasks(withStates(tasks('a', 'b:a'), { a: state })), [], state);
    }
  });

  test('a diamond with one failed branch blocks the join, not the other branch', () => {
    const list = withStates(tasks('root', 'left:root', 'right:root', 'join:left,right'), {
      root: 'GREEN',
      left: 'BUILDING',
      right: 'CANCELLED',
    });
    assert.deepEqual(findBlockedTasks(list), [{ taskId: 'join', blockedBy: 'right' }]);
  });

  test('with several bad dependencies, the first listed is named', () => {
    const list = withStates(tasks('x', 'y', 't:y,x'), { x: 'NEEDS_HUMAN', y: 'SKIPPED' });
    assert.deepEqual(findBlockedTasks(list), [{ taskId: 't', blockedBy: 'y' }]);
  });

  test('only PENDING tasks are reported', () => {
    const list = withStates(tasks('a', 'b:a', 'c:a'), { a: 'NEEDS_HUMAN', b: 'SKIPPED', c: 'GREEN' });
    assert.deepEqual(findBlockedTasks(list), []);
  });
});

describe('findRevivableTasks', () => {
  const chain = tasks('a', 'b:a', 'c:b');
  const skipped = new Set(['b', 'c']);

  test('after the failed task is retried, the whole skipped chain comes back', () => {
    for (const state of ['PENDING', 'BUILDING', 'GREEN', 'MERGE_CONFLICT', 'MERGED'] as const) {
      const list = withStates(chain, { a: state, b: 'SKIPPED', c: 'SKIPPED' });
      assert.deepEqual(findRevivableTasks(list, skipped), ['b', 'c'], state);
    }
  });

  test('nothing comes back while the cause is still a dead end', () => {
    for (const state of ['NEEDS_HUMAN', 'CANCELLED'] as const) {
      const list = withStates(chain, { a: state, b: 'SKIPPED', c: 'SKIPPED' });
      assert.deepEqual(findRevivableTasks(list, skipped), [], state);
    }
  });

  test('a task a human skipped stays skipped, and so does what depends on it', () => {
    const list = withStates(chain, { a: 'PENDING', b: 'SKIPPED', c: 'SKIPPED' });
    assert.deepEqual(findRevivableTasks(list, new Set(['c'])), []);
    const humanSkippedCause = withStates(tasks('a', 'b:a'), { a: 'SKIPPED', b: 'SKIPPED' });
    assert.deepEqual(findRevivableTasks(humanSkippedCause, new Set(['b'])), []);
  });

  test('a pending dependency that is itself blocked does not revive, so skip/revive cannot ping-pong', () => {
    const list = withStates(tasks('x', 'p:x', 's:p'), { x: 'NEEDS_HUMAN', p: 'PENDING', s: 'SKIPPED' });
    assert.deepEqual(findRevivableTasks(list, new Set(['s'])), []);
  });

  test('every dependency must be able to proceed', () => {
    const list = withStates(tasks('a', 'z', 'b:a,z'), { a: 'PENDING', z: 'NEEDS_HUMAN', b: 'SKIPPED' });
    assert.deepEqual(findRevivableTasks(list, new Set(['b'])), []);
  });
});
