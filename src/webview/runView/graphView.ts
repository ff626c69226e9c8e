// The plan as a dependency graph (SVG). The layout depends only on the tasks and their
// dependencies, so it is computed when the plan changes; a batch of events only recolours boxes.
// Boxes are made when they come near the visible area: a plan of hundreds of tasks costs the
// first paint the boxes on screen, not thousands of SVG elements to lay out and paint.
import type { RunState, RunStatus, TaskView } from '../../engine/domain/runState';
import { isInterruptedStep, isNotStartedByCancel, taskStateWords } from '../../engine/domain/stateWords';
import { actionAttrs } from './actions';
import { afterLayout, centerIn, h, icon, s } from './dom';
import { DEFAULT_GRAPH_OPTIONS, layoutGraph, type GraphLayout, type LaidOutNode } from './graphLayout';
import { legend } from './legend';
import { TASK_STATE_LOOK, TONE_LEGEND, toneClass } from './stateStyle';
import { oneLine } from './text';

const ZOOMS = [0.25, 0.4, 0.6, 0.8, 1, 1.25, 1.5];
// Box text is cut by an estimate of character widths (12px bold id, 11px title, 10px state),
// so a batch of updates never has to measure text.
const TEXT_WIDTH = DEFAULT_GRAPH_OPTIONS.nodeWidth - 26 - 8;
const ID_CHAR_PX = 7.4;
const TITLE_CHAR_PX = 6.2;
const STATE_CHAR_PX = 5.8;
/** Boxes this far (in view heights and widths) outside the visible area are made too, so a scroll finds them drawn. */
const BUILD_MARGIN = 1;

export class GraphView {
  readonly element = h('div', { class: 'panel-body' });
  private readonly scroller = h('div', { class: 'scroll graph-scroll', tabindex: 0 });
  private readonly zoomLabel = h('span', { class: 'zoom-label' });
  private planKey = '';
  private layout: GraphLayout | undefined;
  private svg: SVGSVGElement | undefined;
  private readonly nodes = new Map<string, { group: SVGGElement; id: SVGTextElement; label: SVGTextElement; tip: SVGTitleElement; stateText: SVGTextElement }>();
  /** Laid-out boxes not made yet (far from the visible area), and where the made ones go. */
  private unbuilt: LaidOutNode[] = [];
  private nodeLayer: SVGGElement | undefined;
  /** The latest view of each task, for boxes made later. */
  private readonly tasks = new Map<string, TaskView>();
  private buildFrame = 0;
  private zoom = 1;
  private selected: string | undefined;
  /** Whether an engine drives the run: a step under way without one reads "interrupted". */
  driven = true;
  /** The run's status: a task its cancelled run never started reads "not started". */
  private runStatus: RunStatus = 'running';

  constructor() {
    const zoomButton = (name: string, title: string, delta: number) =>
      h('button', { class: 'icon-button', type: 'button', title, 'aria-label': title, 'data-zoom': delta }, icon(name));
    const toolbar = h(
      'div',
      { class: 'toolbar' },
      legend('Colours by task state', TONE_LEGEND.map(({ tone, label }) => ({ swatchClass: toneClass(tone), label }))),
      h('span', { class: 'spacer' }),
      zoomButton('zoom-out', 'Zoom out', -1),
      this.zoomLabel,
      zoomButton('zoom-in', 'Zoom in', 1),
      zoomButton('screen-full', 'Fit to view', 0),
    );
    toolbar.addEventListener('click', (event) => {
      const button = (event.target as Element).closest('[data-zoom]');
      if (button) this.setZoom(Number(button.getAttribute('data-zoom')));
    });
    this.element.append(toolbar, this.scroller);
    const soon = () => {
      if (!this.buildFrame) this.buildFrame = requestAnimationFrame(() => this.buildVisible());
    };
    this.scroller.addEventListener('scroll', soon, { passive: true });
    new ResizeObserver(soon).observe(this.scroller);
  }

  render(state: RunState): void {
    this.runStatus = state.status;
    const tasks = state.taskOrder.map((id) => state.tasks[id]).filter((t): t is TaskView => !!t);
    for (const task of tasks) this.tasks.set(task.id, task);
    // Without tasks, whether a plan is still being drafted or planning ended without one.
    const drafting = state.status === 'planning' && this.driven;
    const key = JSON.stringify(tasks.length ? tasks.map((t) => [t.id, t.dependsOn]) : drafting);
    if (key !== this.planKey) {
      this.planKey = key;
      this.build(tasks, drafting);
    }
    for (const task of tasks) this.paint(task);
  }

  /** Marks the task's box as the selected one. */
  select(taskId: string): void {
    const previous = this.selected;
    this.selected = taskId;
    for (const id of [previous, taskId]) {
      const task = id !== undefined ? this.tasks.get(id) : undefined;
      if (task) this.paint(task);
    }
  }

  /** Scrolls the task's box into view and focuses it; false when the graph has no such box. */
  reveal(taskId: string): boolean {
    // A box far from the visible area is not made yet: a link to it makes it first.
    const unbuilt = this.unbuilt.findIndex((n) => n.id === taskId);
    if (unbuilt >= 0 && this.nodeLayer) this.buildNode(this.nodeLayer, this.unbuilt.splice(unbuilt, 1)[0]!);
    const node = this.nodes.get(taskId);
    if (!node) return false;
    afterLayout(() => {
      centerIn(this.scroller, node.group);
      node.group.focus({ preventScroll: true });
    });
    return true;
  }

  private build(tasks: TaskView[], drafting: boolean): void {
    this.nodes.clear();
    this.unbuilt = [];
    this.nodeLayer = undefined;
    const ids = new Set(tasks.map((t) => t.id));
    for (const id of [...this.tasks.keys()]) if (!ids.has(id)) this.tasks.delete(id);
    if (!tasks.length) {
      this.layout = undefined;
      this.svg = undefined;
      this.scroller.replaceChildren(h('p', { class: 'empty' }, drafting ? 'No tasks yet: the plan is being drafted.' : 'No plan: planning ended without one.'));
      return;
    }
    const layout = (this.layout = layoutGraph(tasks));
    // The first sight of a wide plan shrinks it to the view's width, but not below a readable
    // size (a big plan scrolls); later rebuilds keep the user's zoom.
    if (!this.svg) this.zoom = Math.max(0.8, Math.min(1, this.fitZoom(layout.width)));
    const svg = s('svg', { class: 'graph', viewBox: `0 0 ${layout.width} ${layout.height}`, role: 'group', 'aria-label': `Task graph, ${tasks.length} tasks` });
    svg.append(
      s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, s('path', { class: 'arrow-head', d: 'M0,0 L10,5 L0,10 z' }))),
    );
    const edges = s('g', { class: 'edges' });
    for (const e of layout.edges) edges.append(s('path', { class: 'edge', d: e.d, 'marker-end': 'url(#arrow)' }));
    const nodes = s('g', { class: 'nodes' });
    svg.append(edges, nodes);
    this.svg = svg;
    this.nodeLayer = nodes;
    this.unbuilt = [...layout.nodes];
    this.applyZoom();
    this.scroller.replaceChildren(svg);
  }

  /** Makes the boxes in or near the visible area (once each). */
  private buildVisible(): void {
    this.buildFrame = 0;
    const layer = this.nodeLayer;
    if (!layer || this.unbuilt.length === 0) return;
    // Before the panel is laid out it has no size: a window's worth is assumed.
    const width = this.scroller.clientWidth || 1200;
    const height = this.scroller.clientHeight || 900;
    const left = (this.scroller.scrollLeft - BUILD_MARGIN * width) / this.zoom;
    const right = (this.scroller.scrollLeft + (1 + BUILD_MARGIN) * width) / this.zoom;
    const top = (this.scroller.scrollTop - BUILD_MARGIN * height) / this.zoom;
    const bottom = (this.scroller.scrollTop + (1 + BUILD_MARGIN) * height) / this.zoom;
    const later: LaidOutNode[] = [];
    for (const n of this.unbuilt) {
      const near = n.x + n.width >= left && n.x <= right && n.y + n.height >= top && n.y <= bottom;
      if (near) this.buildNode(layer, n);
      else later.push(n);
    }
    this.unbuilt = later;
  }

  private buildNode(layer: SVGGElement, n: LaidOutNode): void {
    const tip = s('title');
    const label = s('text', { class: 'node-title', x: n.x + 26, y: n.y + 31 });
    const id = s('text', { class: 'node-id', x: n.x + 26, y: n.y + 16 });
    const stateText = s('text', { class: 'node-state', x: n.x + n.width - 8, y: n.y + 16, 'text-anchor': 'end' });
    const group = s(
      'g',
      { class: 'node', tabindex: 0, role: 'button', ...actionAttrs('reveal', { taskId: n.id }) },
      tip,
      s('rect', { class: 'node-box', x: n.x, y: n.y, width: n.width, height: n.height, rx: 4 }),
      s('rect', { class: 'node-strip', x: n.x, y: n.y, width: 5, height: n.height, rx: 2 }),
      s('circle', { class: 'node-dot', cx: n.x + 15, cy: n.y + n.height / 2, r: 5 }),
      id,
      stateText,
      label,
    );
    layer.append(group);
    this.nodes.set(n.id, { group, id, label, tip, stateText });
    const task = this.tasks.get(n.id);
    if (task) this.paint(task);
  }

  private paint(task: TaskView): void {
    const node = this.nodes.get(task.id);
    if (!node) return;
    // A box has little room: "interrupted" alone (its colour still says the step), the tooltip has both.
    const run = { driven: this.driven, status: this.runStatus };
    const interrupted = isInterruptedStep(task.state, this.driven);
    const notStarted = isNotStartedByCancel(task.state, run);
    const look = interrupted
      ? { ...TASK_STATE_LOOK[task.state], label: 'interrupted' }
      : notStarted
        ? { ...TASK_STATE_LOOK.CANCELLED, label: 'not started' }
        : TASK_STATE_LOOK[task.state];
    // Drawn as left out, like a cancelled task: nothing will start it unless the run is resumed.
    const stateClass = notStarted ? 'cancelled' : task.state.toLowerCase();
    const cls = `node ${toneClass(look.tone)} state-${stateClass}${task.id === this.selected ? ' selected' : ''}`;
    if (node.group.getAttribute('class') !== cls) node.group.setAttribute('class', cls);
    const title = oneLine(task.title, Math.floor(TEXT_WIDTH / TITLE_CHAR_PX));
    if (node.label.textContent !== title) node.label.textContent = title;
    const overlapping = task.overlapWarnings.length > 0;
    const stateLabel = `${overlapping ? '⚠ ' : ''}${task.attempt > 1 ? `${look.label} · #${task.attempt}` : look.label}`;
    if (node.stateText.textContent !== stateLabel) node.stateText.textContent = stateLabel;
    const id = oneLine(task.id, Math.floor((TEXT_WIDTH - 8 - stateLabel.length * STATE_CHAR_PX) / ID_CHAR_PX));
    if (node.id.textContent !== id) node.id.textContent = id;
    const tip = [
      `${task.id}: ${oneLine(task.title, 300)}`,
      `${interrupted || notStarted ? taskStateWords(task.state, run) : look.label}${task.lastReason ? ` — ${oneLine(task.lastReason, 300)}` : ''}`,
      task.dependsOn.length ? `after ${task.dependsOn.join(', ')}` : 'no dependencies',
      ...task.overlapWarnings.map((w) => `⚠ overlaps ${w.otherTaskId}: both changed ${w.files.join(', ')}`),
      'Click to select it here and reveal it in the Runs tree',
    ].join('\n');
    if (node.tip.textContent !== tip) node.tip.textContent = tip;
  }

  /** -1 out, +1 in, 0 fit. */
  private setZoom(delta: number): void {
    if (delta === 0) this.zoom = this.layout ? this.fitZoom(this.layout.width, this.layout.height) : 1;
    else {
      const i = ZOOMS.findIndex((z) => z >= this.zoom - 1e-9);
      this.zoom = ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, (i < 0 ? ZOOMS.length - 1 : i) + delta))]!;
    }
    this.applyZoom();
  }

  /** The zoom at which a picture of this size fits the visible area. */
  private fitZoom(width: number, height?: number): number {
    const room = (this.scroller.clientWidth || 800) - 32;
    const roomY = Math.max(this.scroller.clientHeight || 600, 300) - 20;
    return Math.max(0.1, Math.min(1, room / width, height ? roomY / height : 1));
  }

  private applyZoom(): void {
    this.zoomLabel.textContent = `${Math.round(this.zoom * 100)}%`;
    if (!this.svg || !this.layout) return;
    this.svg.setAttribute('width', String(Math.ceil(this.layout.width * this.zoom)));
    this.svg.setAttribute('height', String(Math.ceil(this.layout.height * this.zoom)));
    // Zoomed out, more of the plan is in view.
    this.buildVisible();
  }
}
