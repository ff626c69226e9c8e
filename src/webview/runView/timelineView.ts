// The timeline (SVG): per task, its states over time and its attempts, Gantt-style, under a row
// for the merge queue and the integration gates. The time axis stays above the rows and scrolls
// sideways with them; only the rows in view (plus a margin) are in the DOM, so a 500-task run
// redraws in a few milliseconds. Zoom: the buttons, Ctrl+wheel, or + / - / 0 on the chart.
import type { RunState, TaskView } from '../../engine/domain/runState';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import { taskTimings } from '../../engine/domain/taskTimings';
import { timingWords } from '../../engine/report/timingWords';
import { actionAttrs } from './actions';
import { h, icon, s } from './dom';
import { formatDuration } from './format';
import { formatClock } from '../../engine/text/clock';
import { legend, type LegendEntry } from './legend';
import { TASK_STATE_LOOK, toneClass } from './stateStyle';
import { oneLine } from './text';
import type { IntegrationRow } from './timelineIntegration';
import { DEFAULT_TIMELINE_OPTIONS, layoutTimeline, nextZoom, PHASE_LOOK, scrollForZoom, type TimelineLayout, type TimelinePhase, type TimelineRow } from './timelineLayout';

const LABEL_CHARS = 24;
const ROW_HEIGHT = DEFAULT_TIMELINE_OPTIONS.rowHeight;
const LABEL_WIDTH = DEFAULT_TIMELINE_OPTIONS.labelWidth;
const AXIS_HEIGHT = 20;
/** Rows drawn above and below the visible ones, so a scroll rarely reaches undrawn space. */
const OVERSCAN_ROWS = 20;

export class TimelineView {
  readonly element = h('div', { class: 'panel-body' });
  private readonly caption = h('span', { class: 'muted timeline-caption' });
  private readonly zoomLabel = h('span', { class: 'zoom-label', 'aria-live': 'polite' });
  private zoom = 1;
  private lastRender: { state: RunState; now: number; driven: boolean } | undefined;
  private readonly axis = h('div', { class: 'timeline-axis' });
  private readonly scroller = h('div', { class: 'scroll timeline-scroll', tabindex: 0 });
  private layout: TimelineLayout | undefined;
  /** Per task, where its time went, in the words trace and the Runs tree use. */
  private timings = new Map<string, string>();
  private rowsGroup: SVGGElement | undefined;
  private drawnRange: [number, number] = [0, -1];
  private scrollFrame = 0;

  constructor() {
    const zoomButton = (name: string, title: string, zoom: 'in' | 'out' | 'fit') =>
      h('button', { class: 'icon-button', type: 'button', title, 'aria-label': title, 'data-timeline-zoom': zoom }, icon(name));
    const toolbar = h(
      'div',
      { class: 'toolbar' },
      legend('Colours by phase', phaseLegend()),
      h('span', { class: 'spacer' }),
      this.caption,
      zoomButton('zoom-out', 'Zoom out (-)', 'out'),
      this.zoomLabel,
      zoomButton('zoom-in', 'Zoom in (+, or Ctrl+wheel)', 'in'),
      zoomButton('screen-full', 'Fit the whole run (0)', 'fit'),
    );
    toolbar.addEventListener('click', (event) => {
      const which = (event.target as Element).closest('[data-timeline-zoom]')?.getAttribute('data-timeline-zoom');
      if (which) this.zoomBy(which as 'in' | 'out' | 'fit', this.scroller.clientWidth / 2);
    });
    this.scroller.addEventListener(
      'wheel',
      (event) => {
        if (!event.ctrlKey && !event.metaKey) return;
        event.preventDefault();
        this.zoomBy(event.deltaY < 0 ? 'in' : 'out', event.clientX - this.scroller.getBoundingClientRect().left);
      },
      { passive: false },
    );
    this.scroller.addEventListener('keydown', (event) => {
      const which = event.key === '+' || event.key === '=' ? 'in' : event.key === '-' ? 'out' : event.key === '0' ? 'fit' : undefined;
      if (!which || event.ctrlKey || event.altKey) return;
      event.preventDefault();
      this.zoomBy(which, this.scroller.clientWidth / 2);
    });
    this.element.append(toolbar, this.axis, this.scroller);
    this.scroller.addEventListener('scroll', () => {
      this.axis.scrollLeft = this.scroller.scrollLeft;
      this.pinLabels();
      if (this.scrollFrame) return;
      this.scrollFrame = requestAnimationFrame(() => {
        this.scrollFrame = 0;
        const [first, last] = this.visibleRows();
        if (first < this.drawnRange[0] || last > this.drawnRange[1]) this.drawRows();
      });
    });
  }

  /** `now` is the current time while the run goes on, the last event's time once it has stopped; `driven`: an engine drives the run. */
  render(state: RunState, now: number, driven: boolean): void {
    this.lastRender = { state, now, driven };
    this.zoomLabel.textContent = `${Math.round(this.zoom * 100)}%`;
    const tasks = state.taskOrder.map((id) => state.tasks[id]).filter((t): t is TaskView => !!t);
    if (!tasks.length) {
      this.layout = undefined;
      this.axis.replaceChildren();
      this.scroller.replaceChildren(h('p', { class: 'empty' }, 'No tasks yet.'));
      return;
    }
    const chartWidth = Math.max(360, (this.scroller.clientWidth || 900) - LABEL_WIDTH - 48);
    const layout = (this.layout = layoutTimeline(tasks, state.integration.batchRecords, now, { chartWidth, axisHeight: 0, zoom: this.zoom, driven }, Date.parse(state.createdAt)));
    // `now` is the last event's time once the run stopped, so live: the timings end where the bars do.
    this.timings = new Map(tasks.filter((t) => t.transitions.length).map((t) => [t.id, timingWords(taskTimings(state, t, { now, live: true }), formatDuration)]));
    const width = layout.width + 16;
    const before = layout.beforeStart ? ` (planning and approval took ${formatDuration(layout.beforeStart)} before it)` : '';
    this.caption.textContent = `from the first task's start at ${formatClock(new Date(layout.start).toISOString())}${before}, ${formatDuration(layout.end - layout.start)} shown`;

    const axis = s('svg', { class: 'timeline', width, height: AXIS_HEIGHT, viewBox: `0 0 ${width} ${AXIS_HEIGHT}`, 'aria-hidden': 'true' });
    const grid = s('g', { class: 'grid' });
    for (const tick of layout.ticks) {
      axis.append(s('text', { class: 'tick-label', x: tick.x, y: 14, 'text-anchor': tick.x === LABEL_WIDTH ? 'start' : 'middle' }, tick.label));
      grid.append(s('line', { class: 'grid-line', x1: tick.x, x2: tick.x, y1: 0, y2: layout.height }));
    }
    this.axis.replaceChildren(axis);

    this.rowsGroup = s('g', { class: 'rows' });
    const body = s('svg', { class: 'timeline', width, height: layout.height, viewBox: `0 0 ${width} ${layout.height}`, role: 'group', 'aria-label': `Timeline of ${tasks.length} tasks` });
    body.append(hatchPattern(), grid, ...(layout.integration ? [drawIntegration(layout.integration, width)] : []), this.rowsGroup);
    this.scroller.replaceChildren(body);
    this.axis.scrollLeft = this.scroller.scrollLeft;
    this.drawRows();
  }

  /** Zooms the time area, keeping the moment at `pointerX` (from the chart's left edge) in place. */
  private zoomBy(which: 'in' | 'out' | 'fit', pointerX: number): void {
    const old = this.zoom;
    this.zoom = which === 'fit' ? 1 : nextZoom(old, which === 'in' ? 1 : -1);
    if (this.zoom === old || !this.lastRender) return;
    const scrollLeft = scrollForZoom(this.scroller.scrollLeft, pointerX, LABEL_WIDTH, old, this.zoom);
    this.render(this.lastRender.state, this.lastRender.now, this.lastRender.driven);
    this.scroller.scrollLeft = which === 'fit' ? 0 : scrollLeft;
  }

  private visibleRows(): [number, number] {
    const svg = this.rowsGroup?.ownerSVGElement;
    if (!svg) return [0, -1];
    const top = this.scroller.getBoundingClientRect().top - svg.getBoundingClientRect().top - (this.layout?.rows[0]?.y ?? 0);
    const height = this.scroller.clientHeight || 800;
    return [Math.max(0, Math.floor(top / ROW_HEIGHT)), Math.ceil((top + height) / ROW_HEIGHT)];
  }

  private drawRows(): void {
    if (!this.layout || !this.rowsGroup) return;
    const [first, last] = this.visibleRows();
    const from = Math.max(0, first - OVERSCAN_ROWS);
    const to = Math.min(this.layout.rows.length - 1, last + OVERSCAN_ROWS);
    this.drawnRange = [first - OVERSCAN_ROWS / 2, last + OVERSCAN_ROWS / 2];
    const rows: SVGGElement[] = [];
    for (let i = from; i <= to; i++) {
      const row = this.layout.rows[i]!;
      rows.push(drawRow(row, i, this.layout.width + 16, this.timings.get(row.taskId)));
    }
    this.rowsGroup.replaceChildren(...rows);
    this.pinLabels();
  }

  /** The task names stay at the left edge while a zoomed chart scrolls sideways under them. */
  private pinLabels(): void {
    const x = Math.max(0, this.scroller.scrollLeft - SCROLL_PADDING);
    this.scroller.classList.toggle('labels-pinned', x > 0);
    for (const head of this.scroller.querySelectorAll('.row-head')) head.setAttribute('transform', `translate(${x},0)`);
  }
}

/** The pattern of the hatched phases; runView.css's .hatch fills with it. */
const HATCH_ID = 'timeline-hatch';

/** The scroller's left padding (runView.css .scroll), before the chart's own x = 0. */
const SCROLL_PADDING = 16;

/** A row's name on a background of its own, so bars scrolled under it do not show through. */
function rowHead(y: number, label: SVGTextElement): SVGGElement {
  return s('g', { class: 'row-head' }, s('rect', { class: 'row-head-bg', x: 0, y, width: LABEL_WIDTH - 6, height: ROW_HEIGHT }), label);
}

function drawRow(row: TimelineRow, index: number, width: number, timings: string | undefined): SVGGElement {
  const g = s('g', { class: 'timeline-row' });
  if (index % 2 === 1) g.append(s('rect', { class: 'row-stripe', x: 0, y: row.y, width, height: ROW_HEIGHT }));
  const look = TASK_STATE_LOOK[row.state];
  const label = s(
    'text',
    { class: 'row-label', x: 4, y: row.y + 17, tabindex: 0, role: 'button', ...actionAttrs('reveal', { taskId: row.taskId }) },
    s('title', {}, `${row.taskId}: ${oneLine(row.title, 300)}\n${look.label}${timings ? `\n${timings}` : ''}\nClick to select it and reveal it in the Runs tree`),
    oneLine(row.taskId, LABEL_CHARS),
  );
  for (const span of row.spans) {
    const words = span.phase === 'interrupted' ? `${TASK_STATE_LOOK[span.state].label}, interrupted (Resume starts it again)` : TASK_STATE_LOOK[span.state].label;
    const title = `${row.taskId}: ${words} for ${formatDuration(span.to - span.from)}${span.open && span.phase !== 'interrupted' ? ' (ongoing)' : ''}\n${oneLine(span.reason, 300)}`;
    g.append(...phaseBar(span.phase, `span state-${span.state.toLowerCase()}${span.open ? ' open' : ''}`, { x: span.x, y: row.y + 4, width: span.width, height: 12 }, title));
  }
  for (const attempt of row.attempts) {
    const what = attempt.outcome ? `\n${oneLine(`${TASK_STATE_WORDS[attempt.outcome.state]}: ${attempt.outcome.reason}`, 300)}` : attempt.open ? ' (ongoing)' : '';
    g.append(
      s(
        'rect',
        { class: `attempt${attempt.open ? ' open' : ''}`, x: attempt.x, y: row.y + 19, width: attempt.width, height: 4, rx: 1 },
        s('title', {}, `${row.taskId}: attempt ${attempt.number}, ${formatDuration(attempt.to - attempt.from)}${what}`),
      ),
    );
  }
  if (row.settledAt) {
    const { x, state: end, at } = row.settledAt;
    const y = row.y + 10;
    g.append(
      s(
        'path',
        { class: `settled ${toneClass(TASK_STATE_LOOK[end].tone)}`, d: `M${x},${y - 6} L${x + 6},${y} L${x},${y + 6} L${x - 6},${y} z` },
        s('title', {}, `${row.taskId}: ${TASK_STATE_LOOK[end].label} at ${formatClock(new Date(at).toISOString())}`),
      ),
    );
  }
  g.append(rowHead(row.y, label));
  return g;
}

function drawIntegration(row: IntegrationRow, width: number): SVGGElement {
  const g = s('g', { class: 'timeline-row integration-row' });
  g.append(s('rect', { class: 'integration-band', x: 0, y: row.y, width, height: ROW_HEIGHT }));
  const label = s(
    'text',
    { class: 'row-label integration-label', x: 4, y: row.y + 17 },
    s('title', {}, 'The merge queue: green tasks merged onto the integration branch, the integration gate run on each batch, and the fixes of tasks it sent back'),
    'integration',
  );
  const lane = { y: row.y + 4, height: 12 };
  for (const step of row.steps) {
    const box = { x: step.x, width: step.width, ...lane };
    if (step.kind === 'merging') {
      const title = `Merging batch ${step.batch}: ${step.taskIds.join(', ')}, ${formatDuration(step.to - step.from)}${step.open ? ' (ongoing)' : ''}`;
      g.append(...phaseBar('queue', `integration-step step-merging${step.open ? ' open' : ''}`, box, title));
    } else {
      const title = `Integration gate ${step.passed ? 'passed' : 'failed'}${step.batch ? ` on batch ${step.batch}` : ''}, ${formatDuration(step.to - step.from)} (ledger #${step.seq})`;
      g.append(...phaseBar(step.passed ? 'gate' : 'rework', `integration-step step-gate ${step.passed ? 'passed' : 'failed'}`, box, title));
    }
  }
  for (const fix of row.fixes) {
    const title = `After-merge fix of ${fix.taskId}, ${formatDuration(fix.to - fix.from)}${fix.open ? ' (ongoing)' : ''}\n${oneLine(fix.reason, 300)}`;
    g.append(...phaseBar('fix', `integration-fix${fix.open ? ' open' : ''}`, { x: fix.x, width: fix.width, y: row.y + 18, height: 5 }, title));
  }
  g.append(rowHead(row.y, label));
  return g;
}

/** A bar in a phase's colour, with the hatching over it for the phases that carry one (legend and chart alike). */
function phaseBar(phase: TimelinePhase, classes: string, box: { x: number; y: number; width: number; height: number }, title: string): SVGElement[] {
  const bar = s('rect', { class: `${classes} phase-${phase}`, ...box, rx: 2 }, s('title', {}, title));
  // The hatching lets the pointer through to the bar, whose title it shows.
  return PHASE_LOOK[phase].hatched ? [bar, s('rect', { class: 'hatch', ...box, rx: 2 })] : [bar];
}

function phaseLegend(): LegendEntry[] {
  return (Object.entries(PHASE_LOOK) as Array<[TimelinePhase, { label: string; hatched: boolean }]>).map(([phase, look]) => ({
    swatchClass: `phase-${phase}${look.hatched ? ' hatched' : ''}`,
    label: look.label,
  }));
}

/** Diagonal stripes in the editor's background colour, laid over a hatched phase's bars. */
function hatchPattern(): SVGElement {
  return s(
    'defs',
    {},
    s('pattern', { id: HATCH_ID, width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, s('rect', { class: 'hatch-stripe', x: 0, y: 0, width: 1.6, height: 4 })),
  );
}
