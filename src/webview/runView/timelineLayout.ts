// The timeline: one row per task, time left to right. A row shows the states the task went
// through (from its transitions) as coloured spans, its attempts as bars in a lane below, and a
// marker where it settled. Pure: no DOM; the view turns this into SVG.
import type { TaskView } from '../../engine/domain/runState';
import type { TaskState } from '../../engine/domain/taskStates';

export type TimelineTask = Pick<TaskView, 'id' | 'title' | 'state' | 'transitions' | 'attempts'>;

export interface TimelineOptions {
  rowHeight: number;
  /** Room on the left for the task names. */
  labelWidth: number;
  /** Width of the time area. */
  chartWidth: number;
  axisHeight: number;
  /** The shortest bar drawn, in pixels, so an instant still shows. */
  minBarWidth: number;
}

export interface TimelineSpan {
  state: TaskState;
  x: number;
  width: number;
  from: number;
  to: number;
  /** Still going at `now`. */
  open: boolean;
  reason: string;
}

export interface TimelineAttempt {
  number: number;
  x: number;
  width: number;
  from: number;
  to: number;
  open: boolean;
  outcome?: string;
}

export interface TimelineRow {
  taskId: string;
  title: string;
  state: TaskState;
  /** Top of the row. */
  y: number;
  spans: TimelineSpan[];
  attempts: TimelineAttempt[];
  /** Where the task reached the state it is settled in, if it is. */
  settledAt?: { x: number; state: TaskState; at: number };
}

export interface TimelineTick {
  x: number;
  label: string;
}

export interface TimelineLayout {
  start: number;
  end: number;
  rows: TimelineRow[];
  ticks: TimelineTick[];
  width: number;
  height: number;
}

export const DEFAULT_TIMELINE_OPTIONS: TimelineOptions = {
  rowHeight: 26,
  labelWidth: 180,
  chartWidth: 640,
  axisHeight: 24,
  minBarWidth: 2,
};

const SETTLED: ReadonlySet<TaskState> = new Set(['GREEN', 'UNVERIFIED_BY_CRITIC', 'NEEDS_HUMAN', 'SKIPPED', 'CANCELLED']);

/**
 * Lays out `tasks` between `runStart` and `now`. `now` is the current time while the run is
 * going and the last event's time once it has stopped, so a stopped run does not stretch on.
 */
export function layoutTimeline(
  tasks: readonly TimelineTask[],
  runStart: number,
  now: number,
  options: Partial<TimelineOptions> = {},
): TimelineLayout {
  const o = { ...DEFAULT_TIMELINE_OPTIONS, ...options };
  let start = Number.isFinite(runStart) ? runStart : Infinity;
  let last = -Infinity;
  for (const t of tasks) {
    for (const tr of t.transitions) {
      const at = Date.parse(tr.at);
      start = Math.min(start, at);
      last = Math.max(last, at);
    }
  }
  if (!Number.isFinite(start)) start = now;
  const end = Math.max(start + 1000, now, last);
  const scale = o.chartWidth / (end - start);
  const xOf = (t: number) => o.labelWidth + (t - start) * scale;
  const bar = (from: number, to: number) => ({ x: xOf(from), width: Math.max(o.minBarWidth, (to - from) * scale) });

  const rows = tasks.map((task, index): TimelineRow => {
    const settled = SETTLED.has(task.state);
    const spans: TimelineSpan[] = [];
    task.transitions.forEach((tr, i) => {
      const from = Date.parse(tr.at);
      const next = task.transitions[i + 1];
      if (!next && settled) return; // the end state is a marker, not a span
      const to = next ? Date.parse(next.at) : Math.max(from, now);
      spans.push({ state: tr.to, from, to, open: !next, reason: tr.reason, ...bar(from, to) });
    });
    const attempts = task.attempts.map((a): TimelineAttempt => {
      const from = Date.parse(a.startedAt);
      const ended = a.endedAt ?? (settled ? task.transitions.at(-1)?.at : undefined);
      const to = ended ? Date.parse(ended) : Math.max(from, now);
      return { number: a.number, from, to, open: !ended, ...(a.outcome ? { outcome: a.outcome } : {}), ...bar(from, to) };
    });
    const lastTransition = task.transitions.at(-1);
    const row: TimelineRow = { taskId: task.id, title: task.title, state: task.state, y: o.axisHeight + index * o.rowHeight, spans, attempts };
    if (settled && lastTransition) {
      const at = Date.parse(lastTransition.at);
      row.settledAt = { x: xOf(at), state: task.state, at };
    }
    return row;
  });

  const step = tickStep(end - start, Math.max(2, Math.floor(o.chartWidth / 90)));
  const ticks: TimelineTick[] = [];
  for (let t = 0; t <= end - start; t += step) ticks.push({ x: xOf(start + t), label: elapsedLabel(t) });

  return {
    start,
    end,
    rows,
    ticks,
    width: o.labelWidth + o.chartWidth,
    height: o.axisHeight + tasks.length * o.rowHeight,
  };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const STEPS = [1, 2, 5, 10, 15, 30].map((s) => s * SECOND)
  .concat([1, 2, 5, 10, 15, 30].map((m) => m * MINUTE))
  .concat([1, 2, 3, 6, 12, 24, 48, 168].map((h) => h * HOUR));

/** The smallest round step that gives at most `maxTicks` intervals over `duration`. */
export function tickStep(duration: number, maxTicks: number): number {
  return STEPS.find((s) => duration / s <= maxTicks) ?? Math.ceil(duration / maxTicks / (168 * HOUR)) * 168 * HOUR;
}

/** Time since the run started, as an axis reads it: "0", "45s", "2m", "1m 30s", "1h 15m". */
export function elapsedLabel(ms: number): string {
  if (ms === 0) return '0';
  const h = Math.floor(ms / HOUR);
  const m = Math.floor((ms % HOUR) / MINUTE);
  const s = Math.floor((ms % MINUTE) / SECOND);
  const parts = [h ? `${h}h` : '', m ? `${m}m` : '', s && !h ? `${s}s` : ''].filter(Boolean);
  return parts.join(' ') || '0';
}
