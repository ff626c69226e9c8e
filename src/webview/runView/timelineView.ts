// The timeline (SVG): per task, its states over time and its attempts, Gantt-style. The time
// axis stays above the rows; only the rows in view (plus a margin) are in the DOM, so a
// 500-task run redraws in a few milliseconds.
import type { RunState, TaskView } from '../../engine/domain/runState';
import { taskTimings } from '../../engine/domain/taskTimings';
import { timingWords } from '../../engine/report/timingWords';
import { actionAttrs } from './actions';
import { h, s } from './dom';
import { formatClock, formatDuration } from './format';
import { legend } from './legend';
import { TASK_STATE_LOOK, toneClass } from './stateStyle';
import { oneLine } from './text';
import { DEFAULT_TIMELINE_OPTIONS, layoutTimeline, type TimelineLayout, type TimelineRow } from './timelineLayout';

const LABEL_CHARS = 24;
const ROW_HEIGHT = DEFAULT_TIMELINE_OPTIONS.rowHeight;
const LABEL_WIDTH = DEFAULT_TIMELINE_OPTIONS.labelWidth;
const AXIS_HEIGHT = 20;
/** Rows drawn above and below the visible ones, so a scroll rarely reaches undrawn space. */
const OVERSCAN_ROWS = 20;

export class TimelineView {
  readonly element = h('div', { class: 'panel-body' });
  private readonly caption = h('span', { class: 'muted' });
  private readonly axis = h('div', { class: 'timeline-axis' });
  private readonly scroller = h('div', { class: 'scroll timeline-scroll', tabindex: 0 });
  private layout: TimelineLayout | undefined;
  /** Per task, where its time went, in the words trace and the Runs tree use. */
  private timings = new Map<string, string>();
  private rowsGroup: SVGGElement | undefined;
  private drawnRange: [number, number] = [0, -1];
  private scrollFrame = 0;

  constructor() {
    this.element.append(h('div', { class: 'toolbar' }, legend(), h('span', { class: 'spacer' }), this.caption), this.axis, this.scroller);
    this.scroller.addEventListener('scroll', () => {
      if (this.scrollFrame) return;
      this.scrollFrame = requestAnimationFrame(() => {
        this.scrollFrame = 0;
        const [first, last] = this.visibleRows();
        if (first < this.drawnRange[0] || last > this.drawnRange[1]) this.drawRows();
      });
    });
  }

  /** `now` is the current time while the run goes on, the last event's time once it has stopped. */
  render(state: RunState, now: number): void {
    const tasks = state.taskOrder.map((id) => state.tasks[id]).filter((t): t is TaskView => !!t);
    if (!tasks.length) {
      this.layout = undefined;
      this.axis.replaceChildren();
      this.scroller.replaceChildren(h('p', { class: 'empty' }, 'No tasks yet.'));
      return;
    }
    const chartWidth = Math.max(360, (this.scroller.clientWidth || 900) - LABEL_WIDTH - 48);
    const layout = (this.layout = layoutTimeline(tasks, Date.parse(state.createdAt), now, { chartWidth, axisHeight: 0 }));
    // `now` is the last event's time once the run stopped, so live: the timings end where the bars do.
    this.timings = new Map(tasks.filter((t) => t.transitions.length).map((t) => [t.id, timingWords(taskTimings(state, t, { now, live: true }), formatDuration)]));
    const width = layout.width + 16;
    this.caption.textContent = `from ${formatClock(state.createdAt)}, ${formatDuration(layout.end - layout.start)} shown`;

    const axis = s('svg', { class: 'timeline', width, height: AXIS_HEIGHT, viewBox: `0 0 ${width} ${AXIS_HEIGHT}`, 'aria-hidden': 'true' });
    const grid = s('g', { class: 'grid' });
    for (const tick of layout.ticks) {
      axis.append(s('text', { class: 'tick-label', x: tick.x, y: 14, 'text-anchor': tick.x === LABEL_WIDTH ? 'start' : 'middle' }, tick.label));
      grid.append(s('line', { class: 'grid-line', x1: tick.x, x2: tick.x, y1: 0, y2: layout.height }));
    }
    this.axis.replaceChildren(axis);

    this.rowsGroup = s('g', { class: 'rows' });
    const body = s('svg', { class: 'timeline', width, height: layout.height, viewBox: `0 0 ${width} ${layout.height}`, role: 'group', 'aria-label': `Timeline of ${tasks.length} tasks` });
    body.append(grid, this.rowsGroup);
    this.scroller.replaceChildren(body);
    this.drawRows();
  }

  private visibleRows(): [number, number] {
    const svg = this.rowsGroup?.ownerSVGElement;
    if (!svg) return [0, -1];
    const top = this.scroller.getBoundingClientRect().top - svg.getBoundingClientRect().top;
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
  }
}

function drawRow(row: TimelineRow, index: number, width: number, timings: string | undefined): SVGGElement {
  const g = s('g', { class: 'timeline-row' });
  if (index % 2 === 1) g.append(s('rect', { class: 'row-stripe', x: 0, y: row.y, width, height: ROW_HEIGHT }));
  const look = TASK_STATE_LOOK[row.state];
  g.append(
    s(
      'text',
      { class: 'row-label', x: 4, y: row.y + 17, tabindex: 0, role: 'button', ...actionAttrs('reveal', { taskId: row.taskId }) },
      s('title', {}, `${row.taskId}: ${oneLine(row.title, 300)}\n${look.label}${timings ? `\n${timings}` : ''}\nClick to reveal the task in the Runs tree`),
      oneLine(row.taskId, LABEL_CHARS),
    ),
  );
  for (const span of row.spans) {
    const spanLook = TASK_STATE_LOOK[span.state];
    g.append(
      s(
        'rect',
        { class: `span ${toneClass(spanLook.tone)} state-${span.state.toLowerCase()}${span.open ? ' open' : ''}`, x: span.x, y: row.y + 4, width: span.width, height: 12, rx: 2 },
        s('title', {}, `${row.taskId}: ${spanLook.label} for ${formatDuration(span.to - span.from)}${span.open ? ' (ongoing)' : ''}\n${oneLine(span.reason, 300)}`),
      ),
    );
  }
  for (const attempt of row.attempts) {
    const what = attempt.outcome ? `\n${oneLine(attempt.outcome, 300)}` : attempt.open ? ' (ongoing)' : '';
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
  return g;
}
