import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layoutGraph, type GraphInput, type GraphLayout } from '../../../src/webview/runView/graphLayout';

const task = (id: string, ...dependsOn: string[]): GraphInput => ({ id, dependsOn });

function overlaps(layout: GraphLayout): string[] {
  const found: string[] = [];
  const nodes = [...layout.nodes].sort((a, b) => a.x - b.x || a.y - b.y);
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length && nodes[j]!.x < nodes[i]!.x + nodes[i]!.width; j++) {
      const a = nodes[i]!;
      const b = nodes[j]!;
      if (a.y < b.y + b.height && b.y < a.y + a.height) found.push(`${a.id}/${b.id}`);
    }
  }
  return found;
}

/** A random DAG: each task depends on up to three of the 40 tasks before it. */
function randomPlan(count: number, seed = 1): GraphInput[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, (_, i) => {
    const deps = new Set<string>();
    if (i > 0) for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) deps.add(`t${Math.max(0, i - 1 - Math.floor(rnd() * 40))}`);
    return task(`t${i}`, ...deps);
  });
}

describe('graph layout', () => {
  it('puts each task one column after the latest of its dependencies (longest path)', () => {
    const layout = layoutGraph([task('a'), task('b', 'a'), task('c', 'a'), task('d', 'a', 'b')]);
    assert.deepEqual(layout.layers.map((l) => [...l].sort()), [['a'], ['b', 'c'], ['d']]);
    const byId = new Map(layout.nodes.map((n) => [n.id, n]));
    assert.ok(byId.get('a')!.x < byId.get('b')!.x && byId.get('b')!.x < byId.get('d')!.x);
    assert.equal(byId.get('b')!.x, byId.get('c')!.x);
  });

  it('draws one edge per dependency, from the right of the dependency to the left of the task', () => {
    const layout = layoutGraph([task('a'), task('b', 'a'), task('c', 'a', 'b')]);
    assert.equal(layout.edges.length, 3);
    const byId = new Map(layout.nodes.map((n) => [n.id, n]));
    for (const e of layout.edges) {
      const from = byId.get(e.from)!;
      const to = byId.get(e.to)!;
      const start = /^M([\d.]+),([\d.]+)/.exec(e.d)!;
      const end = /([\d.]+),([\d.]+)$/.exec(e.d)!;
      assert.equal(Number(start[1]), from.x + from.width);
      assert.equal(Number(start[2]), from.y + from.height / 2);
      assert.equal(Number(end[1]), to.x);
      assert.equal(Number(end[2]), to.y + to.height / 2);
    }
  });

  it('routes an edge that skips a column through its own lane, clear of the boxes', () => {
    const layout = layoutGraph([task('a'), task('b', 'a'), task('c', 'a', 'b')]);
    const long = layout.edges.find((e) => e.from === 'a' && e.to === 'c')!;
    const b = layout.nodes.find((n) => n.id === 'b')!;
    const straight = / L([\d.]+),([\d.]+)/.exec(long.d);
    assert.ok(straight, 'the edge runs straight through the middle column');
    const laneY = Number(straight[2]);
    assert.ok(laneY < b.y || laneY > b.y + b.height, `lane at y=${laneY} clears box b (${b.y}..${b.y + b.height})`);
  });

  it('reorders a column to remove a crossing the plan order would cause', () => {
    // b1 hangs off a2 and b2 off a1: in plan order the two edges cross.
    const layout = layoutGraph([task('a1'), task('a2'), task('b1', 'a2'), task('b2', 'a1')]);
    assert.equal(layout.crossings, 0);
    const y = new Map(layout.nodes.map((n) => [n.id, n.y]));
    assert.equal(y.get('a1')! < y.get('a2')!, y.get('b2')! < y.get('b1')!);
  });

  it('ignores unknown and self dependencies and repeated ids, and survives a cycle', () => {
    const layout = layoutGraph([task('a', 'ghost', 'a'), task('a'), task('b', 'c'), task('c', 'b')]);
    assert.deepEqual(layout.nodes.map((n) => n.id).sort(), ['a', 'b', 'c']);
    assert.equal(overlaps(layout).length, 0);
    assert.equal(layoutGraph([]).nodes.length, 0);
  });

  it('lays out 500 tasks without overlaps, every task right of its dependencies', () => {
    const plan = randomPlan(500);
    const layout = layoutGraph(plan);
    assert.equal(layout.nodes.length, 500);
    assert.deepEqual(overlaps(layout), []);
    const byId = new Map(layout.nodes.map((n) => [n.id, n]));
    for (const t of plan) for (const d of t.dependsOn) assert.ok(byId.get(d)!.x < byId.get(t.id)!.x, `${d} before ${t.id}`);
    assert.equal(layout.edges.length, plan.reduce((sum, t) => sum + t.dependsOn.length, 0));
    for (const n of layout.nodes) {
      assert.ok(n.x >= 0 && n.y >= 0 && n.x + n.width <= layout.width && n.y + n.height <= layout.height, `${n.id} inside the picture`);
    }
  });

  it('keeps the order with the fewest crossings over its sweeps', () => {
    const plan = randomPlan(120, 5);
    const layout = layoutGraph(plan);
    const unordered = layoutGraph(plan, { sweeps: 0 });
    assert.ok(layout.crossings <= unordered.crossings, `${layout.crossings} <= ${unordered.crossings}`);
  });
});
