import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  criticalPathLength,
  makespanLowerBound,
  randomDag,
  simulateMakespan,
  type SimTask,
} from '../../src/engine/schedule/simulateSchedule';

const sim = (spec: Record<string, [number, string[]?]>): SimTask[] =>
  Object.entries(spec).map(([id, [duration, dependsOn = []]]) => ({ id, duration, dependsOn }));

describe('simulateMakespan on known DAGs', () => {
  test('longest chain first beats plan order on a chain listed last', () => {
    // Plan order would run a,b then c,x then y then z = 4; starting x first finishes in 3.
    const tasks = sim({ a: [1], b: [1], c: [1], x: [1], y: [1, ['x']], z: [1, ['y']] });
    assert.equal(simulateMakespan(tasks, 2), 3);
  });

  test('chains are weighted by duration, not by task count', () => {
    // By task count the 3-step y-chain would go first and x (10) would start at t=2, ending at 12.
    const tasks = sim({ z: [1], w: [1], x: [10], y1: [1], y2: [1, ['y1']], y3: [1, ['y2']] });
    assert.equal(simulateMakespan(tasks, 2), 10);
  });

  test('one worker takes the total work; unlimited workers take the critical path', () => {
    const tasks = sim({ a: [3], b: [2, ['a']], c: [4, ['a']], d: [1, ['b', 'c']], e: [5] });
    assert.equal(simulateMakespan(tasks, 1), 15);
    assert.equal(criticalPathLength(tasks), 8);
    assert.equal(simulateMakespan(tasks, 100), 8);
  });

  test('tasks finishing at the same instant free their slots together', () => {
    const tasks = sim({ a: [2], b: [2], c: [1, ['a']], d: [1, ['b']] });
    assert.equal(simulateMakespan(tasks, 2), 3);
  });

  test('a task that can never start is an error, not an endless loop', () => {
    assert.throws(() => simulateMakespan(sim({ a: [1, ['ghost']] }), 2), /can never start/);
    assert.throws(() => simulateMakespan(sim({ a: [-1] }), 2), RangeError);
  });
});

describe('makespanLowerBound', () => {
  test('is the larger of the critical path and the work per worker', () => {
    const tasks = sim({ a: [3], b: [2, ['a']], c: [4, ['a']], d: [1, ['b', 'c']], e: [5] });
    assert.equal(makespanLowerBound(tasks, 1), 15);
    assert.equal(makespanLowerBound(tasks, 2), 8);
    assert.equal(makespanLowerBound(sim({ a: [4], b: [4], c: [4] }), 2), 6);
  });
});

describe('randomDag', () => {
  test('is deterministic per seed and differs between seeds', () => {
    assert.deepEqual(randomDag(7, 25), randomDag(7, 25));
    assert.notDeepEqual(randomDag(7, 25), randomDag(8, 25));
  });

  test('lists dependencies before dependents, with unique ids and durations 1..10', () => {
    const dag = randomDag(42, 60);
    assert.equal(dag.length, 60);
    assert.equal(new Set(dag.map((t) => t.id)).size, 60);
    const seen = new Set<string>();
    let edges = 0;
    for (const t of dag) {
      assert.ok(t.dependsOn.every((d) => seen.has(d)), `${t.id} depends on a later task`);
      assert.ok(t.dependsOn.length <= 3);
      assert.equal(new Set(t.dependsOn).size, t.dependsOn.length);
      assert.ok(Number.isInteger(t.duration) && t.duration >= 1 && t.duration <= 10);
      edges += t.dependsOn.length;
      seen.add(t.id);
    }
    assert.ok(edges > 30, `expected a connected-looking DAG, got ${edges} edges`);
  });
});

// Computed up front so the mean efficiency ratio can appear in the test name.
const runs = Array.from({ length: 20 }, (_, i) => {
  const tasks = randomDag(1000 + i, 20 + (i % 4) * 10);
  const maxParallel = 2 + (i % 3);
  const makespan = simulateMakespan(tasks, maxParallel);
  const bound = makespanLowerBound(tasks, maxParallel);
  return { seed: 1000 + i, n: tasks.length, maxParallel, makespan, bound, ratio: makespan / bound };
});
const meanRatio = runs.reduce((sum, r) => sum + r.ratio, 0) / runs.length;

describe('simulateMakespan on 20 random DAGs', () => {
  test(`never beats the lower bound, stays within Graham's 2 - 1/m of it (mean makespan/bound ${meanRatio.toFixed(3)})`, (t) => {
    for (const r of runs) {
      const where = `seed ${r.seed}, n ${r.n}, maxParallel ${r.maxParallel}: makespan ${r.makespan}, bound ${r.bound}`;
      assert.ok(r.makespan >= r.bound - 1e-9, where);
      // Any list schedule finishes within W/m + (1 - 1/m)·CP ≤ (2 - 1/m)·bound.
      assert.ok(r.makespan <= (2 - 1 / r.maxParallel) * r.bound + 1e-9, where);
    }
    t.diagnostic(`mean makespan / lower bound over ${runs.length} DAGs: ${meanRatio.toFixed(4)}`);
    t.diagnostic(`worst: ${Math.max(...runs.map((r) => r.ratio)).toFixed(4)}`);
  });
});
