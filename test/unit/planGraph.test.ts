import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PlanCycleError, remainingChainLengths, topologicalOrder, transitiveDependents } from '../../src/engine/plan/planGraph';

const graph = (spec: Record<string, string[]>) => ({
  tasks: Object.entries(spec).map(([id, dependsOn]) => ({ id, dependsOn })),
});

describe('topologicalOrder', () => {
  test('keeps plan order when the plan is already in dependency order', () => {
    assert.deepEqual(topologicalOrder(graph({ a: [], b: ['a'], c: [], d: ['b', 'c'] })), ['a', 'b', 'c', 'd']);
  });

  test('moves a task after its dependencies, and nothing else', () => {
    assert.deepEqual(topologicalOrder(graph({ c: ['b'], a: [], b: ['a'], d: [] })), ['a', 'b', 'c', 'd']);
  });

  test('among ready tasks the one listed first goes first, even if it became ready later', () => {
    // After x, both y (listed 2nd) and z (listed 3rd) are ready: y goes first.
    assert.deepEqual(topologicalOrder(graph({ x: [], y: ['x'], z: [] })), ['x', 'y', 'z']);
    assert.deepEqual(topologicalOrder(graph({ z: [], y: ['x'], x: [] })), ['z', 'x', 'y']);
  });

  test('is the same on every call', () => {
    const g = graph({ e: ['a'], a: [], d: ['b', 'c'], c: ['a'], b: ['a'], f: [] });
    const first = topologicalOrder(g);
    assert.deepEqual(first, ['a', 'e', 'c', 'b', 'd', 'f']);
    for (let i = 0; i < 5; i++) assert.deepEqual(topologicalOrder(g), first);
  });

  test('a cycle throws, naming the tasks on or behind it', () => {
    assert.throws(
      () => topologicalOrder(graph({ a: [], b: ['c'], c: ['b'], d: ['c'] })),
      (err: unknown) => err instanceof PlanCycleError && err.taskIds.join() === 'b,c,d',
    );
    assert.throws(() => topologicalOrder(graph({ a: ['a'] })), PlanCycleError);
  });
});

describe('remainingChainLengths', () => {
  test('counts the task itself and the longest path to a sink', () => {
    const lengths = remainingChainLengths(graph({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'], lone: [] }));
    assert.deepEqual(Object.fromEntries(lengths), { a: 3, b: 2, c: 2, d: 1, lone: 1 });
  });

  test('weights by duration when given, 1 for tasks without one', () => {
    const durations = new Map([
      ['a', 2],
      ['b', 10],
      ['c', 1],
    ]);
    const lengths = remainingChainLengths(graph({ a: [], b: ['a'], c: ['a'], d: ['c'] }), durations);
    assert.deepEqual(Object.fromEntries(lengths), { a: 12, b: 10, c: 2, d: 1 });
  });
});

describe('transitiveDependents', () => {
  const g = graph({ a: [], b: ['a'], c: ['b'], d: ['a', 'c'], e: [], f: ['e'] });

  test('finds direct and indirect dependents, not the task itself or unrelated ones', () => {
    assert.deepEqual([...transitiveDependents(g, 'a')].sort(), ['b', 'c', 'd']);
    assert.deepEqual([...transitiveDependents(g, 'c')], ['d']);
    assert.deepEqual([...transitiveDependents(g, 'e')], ['f']);
  });

  test('a sink or an unknown id has none', () => {
    assert.equal(transitiveDependents(g, 'd').size, 0);
    assert.equal(transitiveDependents(g, 'ghost').size, 0);
  });
});
