// The timeline: one row per task, time left to right, from the moment the first task started
// (planning and approval come before and are left out). A row shows the states the task went
// through (from its transitions) as spans coloured by phase, its attempts as bars in a lane
// below, and a marker where it settled; a row above the tasks shows the merge queue's merges, the
// integration gates and the after-merge fixes (timelineIntegration.ts). Pure: no DOM; the view
// turns this into SVG.
import type { AttemptRecord, QueueBatchRecord, TaskView } from '../../engine/domain/runState';
import { isInterruptedStep } from '../../engine/domain/stateWords';
import type { TaskState } from '../../engine/domain/taskStates';
import { afterMergeFixes, integrationSteps, type IntegrationRow } from './timelineIntegration';

/**
 * What a span of time was spent on: each has its own look, so gate, critic and merge queue read
 * apart. `fix` is work after the merge queue sent a task back (a conflict, a failed integration
 * gate); `interrupted`, a step under way when no engine drives the run any more.
 */
export type TimelinePhase = 'waiting' | 'build' | 'gate' | 'critic' | 'rework' | 'fix' | 'queue' | 'needs-you' | 'done' | 'interrupted';

export const STATE_PHASE: Record<TaskState, TimelinePhase> = {
  PENDING: 'waiting',
  BUILDING: 'build',
  GATING: 'gate',
  CRITIC_REVIEWING: 'critic',
  MECHANICAL_FAILED: 'rework',
  CHANGES_REQUIRED: 'rework',
  MERGE_CONFLICT: 'fix',
  RESOLVING: 'fix',
  INTEGRATION_FAILED: 'fix',
  // Approved and not merged yet: waiting in the merge queue.
  GREEN: 'queue',
  UNVERIFIED_BY_CRITIC: 'queue',
  MERGING: 'queue',
  NEEDS_HUMAN: 'needs-you',
  HUMAN_RESOLVING: 'needs-you',
  MERGED: 'done',
  // Left out until retried: no work, as while waiting.
  SKIPPED: 'waiting',
  CANCELLED: 'waiting',
};

/**
 * The timeline's key: every phase it draws, in the order a task meets them, and whether it is
 * hatched as well as coloured (a failure, an interruption: told apart by pattern, not hue alone).
 * A Record, so a new phase cannot be drawn without a legend entry.
 */
export const PHASE_LOOK: Record<TimelinePhase, { label: string; hatched: boolean }> = {
  waiting: { label: 'waiting, skipped, cancelled', hatched: false },
  build: { label: 'building', hatched: false },
  gate: { label: 'gate', hatched: false },
  critic: { label: 'critic', hatched: false },
  rework: { label: 'gate failed, changes required', hatched: true },
  queue: { label: 'merge queue, merging', hatched: false },
  fix: { label: 'after-merge fix', hatched: false },
  done: { label: 'merged', hatched: false },
  'needs-you': { label: 'needs you', hatched: false },
  interrupted: { label: 'interrupted', hatched: true },
};

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
  /** 1 fits the whole time into `chartWidth`; 2 draws it twice as wide (the view scrolls). */
  zoom: number;
  /** An engine drives the run: without one, a step still under way was interrupted. */
  driven: boolean;
}

export interface TimelineSpan {
  state: TaskState;
  phase: TimelinePhase;
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
  outcome?: AttemptRecord['outcome'];
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
  /** The run's planning and approval, before `start`, in ms (0 when unknown). */
  beforeStart: number;
  /** Absent when nothing reached the merge queue yet. */
  integration?: IntegrationRow;
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
  zoom: 1,
  driven: true,
};

const SETTLED: ReadonlySet<TaskState> = new Set(['GREEN', 'UNVERIFIED_BY_CRITIC', 'NEEDS_HUMAN', 'SKIPPED', 'CANCELLED']);

/** The first moment any task left PENDING: where the axis starts. Undefined before any did. */
export function firstTaskStart(tasks: readonly TimelineTask[]): number | undefined {
  let first: number | undefined;
  for (const t of tasks) {
    const started = t.transitions.find((tr) => tr.to !== 'PENDING');
    if (started) first = Math.min(first ?? Infinity, Date.parse(started.at));
  }
  return first;
}

/**
 * Lays out `tasks` and the merge queue's `batches` from the first task's start to `now`. `now`
 * is the current time while the run is going and the last event's time once it has stopped, so
 * a stopped run does not stretch on. `runCreated` only measures what the axis leaves out.
 */
export function layoutTimeline(
  tasks: readonly TimelineTask[],
  batches: readonly QueueBatchRecord[],
  now: number,
  options: Partial<TimelineOptions> = {},
  runCreated = NaN,
): TimelineLayout {
  const o = { ...DEFAULT_TIMELINE_OPTIONS, ...options };
  let last = -Infinity;
  for (const t of tasks) for (const tr of t.transitions) last = Math.max(last, Date.parse(tr.at));
  const start = firstTaskStart(tasks) ?? (Number.isFinite(last) ? Math.min(now, last) : now);
  const end = Math.max(start + 1000, now, last);
  const chartWidth = o.chartWidth * Math.max(1, o.zoom);
  const scale = chartWidth / (end - start);
  const xOf = (t: number) => o.labelWidth + (Math.max(t, start) - start) * scale;
  // Time before the axis (a task's PENDING since the plan was approved) is clipped to its start.
  const bar = (from: number, to: number) => ({ x: xOf(from), width: Math.max(o.minBarWidth, (Math.max(to, start) - Math.max(from, start)) * scale) });
  const integration: IntegrationRow | undefined = batches.length
    ? { y: o.axisHeight, steps: integrationSteps(batches, now, bar), fixes: tasks.flatMap((t) => afterMergeFixes(t.id, t.transitions, now, bar)) }
    : undefined;
  const rowsTop = o.axisHeight + (integration ? o.rowHeight : 0);

  const rows = tasks.map((task, index): TimelineRow => {
    const settled = SETTLED.has(task.state);
    const spans: TimelineSpan[] = [];
    task.transitions.forEach((tr, i) => {
      const from = Date.parse(tr.at);
      const next = task.transitions[i + 1];
      if (!next && settled) return; // the end state is a marker, not a span
      const to = next ? Date.parse(next.at) : Math.max(from, now);
      if (to < start) return; // over before the first task started: nothing to draw
      const phase = !next && isInterruptedStep(tr.to, o.driven) ? 'interrupted' : STATE_PHASE[tr.to];
      spans.push({ state: tr.to, phase, from, to, open: !next, reason: tr.reason, ...bar(from, to) });
    });
    const attempts = task.attempts.map((a): TimelineAttempt => {
      const from = Date.parse(a.startedAt);
      const ended = a.endedAt ?? (settled ? task.transitions.at(-1)?.at : undefined);
      const to = ended ? Date.parse(ended) : Math.max(from, now);
      return { number: a.number, from, to, open: !ended, ...(a.outcome ? { outcome: a.outcome } : {}), ...bar(from, to) };
    });
    const lastTransition = task.transitions.at(-1);
    const row: TimelineRow = { taskId: task.id, title: task.title, state: task.state, y: rowsTop + index * o.rowHeight, spans, attempts };
    if (settled && lastTransition) {
      const at = Date.parse(lastTransition.at);
      row.settledAt = { x: xOf(at), state: task.state, at };
    }
    return row;
  });

  const step = tickStep(end - start, Math.max(2, Math.floor(chartWidth / 90)));
  const ticks: TimelineTick[] = [];
  for (let t = 0; t <= end - start; t += step) ticks.push({ x: xOf(start + t), label: elapsedLabel(t) });

  return {
    start,
    end,
    beforeStart: Number.isFinite(runCreated) && runCreated < start ? start - runCreated : 0,
    ...(integration ? { integration } : {}),
    rows,
    ticks,
    width: o.labelWidth + chartWidth,
    height: rowsTop + tasks.length * o.rowHeight,
  };
}

/** Zoom levels the timeline steps through; 1 fits the whole time into the view. */
export const TIMELINE_ZOOMS: readonly number[] = [1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32];

/** The next zoom level in `direction` (+1 in, -1 out) from `current`, kept within the levels. */
export function nextZoom(current: number, direction: 1 | -1): number {
  if (direction > 0) return TIMELINE_ZOOMS.find((z) => z > current + 1e-9) ?? TIMELINE_ZOOMS.at(-1)!;
  return [...TIMELINE_ZOOMS].reverse().find((z) => z < current - 1e-9) ?? TIMELINE_ZOOMS[0]!;
}

/**
 * The scrollLeft that keeps the moment under `pointerX` (pixels from the scroller's left edge)
 * where it is when the chart's time area goes from `oldZoom` to `newZoom`; the labels on the left
 * (`labelWidth`) do not scale.
 */
export function scrollForZoom(scrollLeft: number, pointerX: number, labelWidth: number, oldZoom: number, newZoom: number): number {
  const timeX = scrollLeft + pointerX - labelWidth;
  return Math.max(0, labelWidth + (timeX * newZoom) / oldZoom - pointerX);
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
