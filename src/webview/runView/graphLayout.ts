// The plan as a layered picture, left to right: a task sits one column after the latest of its
// dependencies (longest path from the roots). Edges that skip columns get a lane through each
// column they cross, so they never run under a task box. Within a column, a few barycenter
// sweeps reorder the boxes to cut crossings, keeping the best order seen. Pure: no DOM.

export interface GraphInput {
  id: string;
  dependsOn: readonly string[];
}

export interface GraphLayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  /** Horizontal space between two columns, where the edges bend. */
  layerGap: number;
  /** Vertical space between two task boxes. */
  nodeGap: number;
  /** Vertical space a passing edge takes in a column. */
  laneGap: number;
  margin: number;
  /** Down-and-up barycenter sweeps. */
  sweeps: number;
}

export interface LaidOutNode {
  id: string;
  layer: number;
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LaidOutEdge {
  /** The dependency. */
  from: string;
  /** The task that depends on it. */
  to: string;
  /** SVG path data, ending at the left edge of `to`. */
  d: string;
}

export interface GraphLayout {
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  width: number;
  height: number;
  /** Task ids per column, top to bottom. */
  layers: string[][];
  /** Edge crossings between neighbouring columns in the chosen order. */
  crossings: number;
}

export const DEFAULT_GRAPH_OPTIONS: GraphLayoutOptions = {
  nodeWidth: 200,
  nodeHeight: 40,
  layerGap: 64,
  nodeGap: 14,
  laneGap: 8,
  margin: 16,
  sweeps: 6,
};

/** A task box or a lane of an edge passing through a column. */
interface Item {
  layer: number;
  /** Index into the tasks for a box; -1 for a lane. */
  node: number;
  up: number[];
  down: number[];
}

export function layoutGraph(tasks: readonly GraphInput[], options: Partial<GraphLayoutOptions> = {}): GraphLayout {
  const o = { ...DEFAULT_GRAPH_OPTIONS, ...options };
  const { ids, deps } = normalise(tasks);
  const layerOf = assignLayers(deps);
  const items: Item[] = ids.map((_, i) => ({ layer: layerOf[i]!, node: i, up: [], down: [] }));

  // Each edge is a chain of items from its dependency to its dependent; backward edges (only in
  // a cyclic plan, which the planner rejects) are drawn directly.
  const chains: Array<{ from: number; to: number; lanes: number[] }> = [];
  deps.forEach((ds, to) => {
    for (const from of ds) {
      const lanes: number[] = [];
      if (layerOf[from]! < layerOf[to]!) {
        let prev = from;
        for (let layer = layerOf[from]! + 1; layer < layerOf[to]!; layer++) {
          const lane = items.push({ layer, node: -1, up: [prev], down: [] }) - 1;
          items[prev]!.down.push(lane);
          lanes.push(lane);
          prev = lane;
        }
        items[to]!.up.push(prev);
        items[prev]!.down.push(to);
      }
      chains.push({ from, to, lanes });
    }
  });

  const layerCount = layerOf.reduce((max, l) => Math.max(max, l + 1), 0);
  const layers: number[][] = Array.from({ length: layerCount }, () => []);
  for (let i = 0; i < items.length; i++) layers[items[i]!.layer]!.push(i);
  const best = orderLayers(items, layers, o.sweeps);

  // Coordinates: columns left to right, each column's items stacked and centred.
  const itemSize = (i: number) => (items[i]!.node >= 0 ? o.nodeHeight + o.nodeGap : o.laneGap);
  const heights = best.order.map((layer) => layer.reduce((sum, i) => sum + itemSize(i), 0));
  const inner = Math.max(0, ...heights);
  const centreY = new Float64Array(items.length);
  best.order.forEach((layer, l) => {
    let y = o.margin + (inner - heights[l]!) / 2;
    for (const i of layer) {
      centreY[i] = y + itemSize(i) / 2;
      y += itemSize(i);
    }
  });
  const columnX = (layer: number) => o.margin + layer * (o.nodeWidth + o.layerGap);

  const nodes: LaidOutNode[] = [];
  for (const layer of best.order) {
    for (const i of layer) {
      const item = items[i]!;
      if (item.node < 0) continue;
      nodes.push({
        id: ids[item.node]!,
        layer: item.layer,
        x: columnX(item.layer),
        y: centreY[i]! - o.nodeHeight / 2,
        width: o.nodeWidth,
        height: o.nodeHeight,
      });
    }
  }

  const edges = chains.map(({ from, to, lanes }) => {
    const points: Array<[number, number]> = [[columnX(layerOf[from]!) + o.nodeWidth, centreY[from]!]];
    for (const lane of lanes) {
      const x = columnX(items[lane]!.layer);
      points.push([x, centreY[lane]!], [x + o.nodeWidth, centreY[lane]!]);
    }
    points.push([columnX(layerOf[to]!), centreY[to]!]);
    return { from: ids[from]!, to: ids[to]!, d: edgePath(points) };
  });

  return {
    nodes,
    edges,
    width: layerCount ? 2 * o.margin + layerCount * o.nodeWidth + (layerCount - 1) * o.layerGap : 2 * o.margin,
    height: 2 * o.margin + inner,
    layers: best.order.map((layer) => layer.filter((i) => items[i]!.node >= 0).map((i) => ids[items[i]!.node]!)),
    crossings: best.crossings,
  };
}

/** Unique ids in input order; dependencies as indexes, unknown ids and self-references dropped. */
function normalise(tasks: readonly GraphInput[]): { ids: string[]; deps: number[][] } {
  const index = new Map<string, number>();
  const ids: string[] = [];
  const unique: GraphInput[] = [];
  for (const t of tasks) {
    if (index.has(t.id)) continue;
    index.set(t.id, ids.length);
    ids.push(t.id);
    unique.push(t);
  }
  const deps = unique.map((t, i) => {
    const ds = new Set<number>();
    for (const d of t.dependsOn) {
      const j = index.get(d);
      if (j !== undefined && j !== i) ds.add(j);
    }
    return [...ds];
  });
  return { ids, deps };
}

/** Longest path from the roots (Kahn's order). Nodes on a cycle go after what they could see. */
function assignLayers(deps: number[][]): number[] {
  const n = deps.length;
  const layer = new Array<number>(n).fill(-1);
  const waiting = deps.map((ds) => ds.length);
  const dependents: number[][] = Array.from({ length: n }, () => []);
  deps.forEach((ds, i) => ds.forEach((d) => dependents[d]!.push(i)));
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (waiting[i] === 0) queue.push(i);
  const place = (i: number) => {
    layer[i] = deps[i]!.reduce((max, d) => (layer[d]! >= 0 ? Math.max(max, layer[d]! + 1) : max), 0);
    for (const next of dependents[i]!) if (--waiting[next]! === 0) queue.push(next);
  };
  for (let next = 0; ; ) {
    while (next < queue.length) place(queue[next++]!);
    const stuck = layer.indexOf(-1);
    if (stuck < 0) break;
    place(stuck);
  }
  return layer;
}

interface Ordering {
  order: number[][];
  crossings: number;
}

function orderLayers(items: Item[], layers: number[][], sweeps: number): Ordering {
  const pos = new Float64Array(items.length);
  const setPositions = (layer: number[]) => layer.forEach((item, i) => (pos[item] = i));
  layers.forEach(setPositions);

  const reorder = (layer: number[], neighbours: (item: Item) => number[]) => {
    const key = new Map<number, number>();
    for (const i of layer) {
      const ns = neighbours(items[i]!);
      // An item with no neighbours on that side keeps its place.
      key.set(i, ns.length ? ns.reduce((sum, n) => sum + pos[n]!, 0) / ns.length : pos[i]!);
    }
    layer.sort((a, b) => key.get(a)! - key.get(b)! || pos[a]! - pos[b]!);
    setPositions(layer);
  };

  // The first down sweep places the lanes next to the boxes they come from.
  for (let l = 1; l < layers.length; l++) reorder(layers[l]!, (item) => item.up);
  let best: Ordering = { order: layers.map((layer) => [...layer]), crossings: countCrossings(items, layers, pos) };
  for (let s = 0; s < sweeps && best.crossings > 0; s++) {
    for (let l = layers.length - 2; l >= 0; l--) reorder(layers[l]!, (item) => item.down);
    for (let l = 1; l < layers.length; l++) reorder(layers[l]!, (item) => item.up);
    const crossings = countCrossings(items, layers, pos);
    if (crossings < best.crossings) best = { order: layers.map((layer) => [...layer]), crossings };
  }
  return best;
}

/** Crossings between each pair of neighbouring columns: inversions of the lower ends, counted with a Fenwick tree. */
function countCrossings(items: Item[], layers: number[][], pos: Float64Array): number {
  let total = 0;
  for (let l = 0; l + 1 < layers.length; l++) {
    const ends: number[] = [];
    for (const i of layers[l]!) {
      const lows = items[i]!.down.map((d) => pos[d]!).sort((a, b) => a - b);
      ends.push(...lows);
    }
    const size = layers[l + 1]!.length;
    const tree = new Int32Array(size + 1);
    let seen = 0;
    for (const end of ends) {
      // Edges already seen whose lower end is below this one cross it.
      let notAbove = 0;
      for (let k = end + 1; k > 0; k -= k & -k) notAbove += tree[k]!;
      total += seen - notAbove;
      for (let k = end + 1; k <= size; k += k & -k) tree[k]! += 1;
      seen++;
    }
  }
  return total;
}

/** Smooth horizontal S-curves between columns, straight runs through the lanes. */
function edgePath(points: Array<[number, number]>): string {
  const r = (n: number) => Math.round(n * 10) / 10;
  let d = `M${r(points[0]![0])},${r(points[0]![1])}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    if (i % 2 === 0) {
      d += ` L${r(x1)},${r(y1)}`;
    } else {
      const mid = (x1 - x0) / 2;
      d += ` C${r(x0 + mid)},${r(y0)} ${r(x1 - mid)},${r(y1)} ${r(x1)},${r(y1)}`;
    }
  }
  return d;
}
