import type { AgentRole, RunnerStatus } from './events';
import type { AgentCallRecord, RunState, TaskView } from './runState';
import { isDone, isInFlight, isQueued, isReturned, isWaitingForHuman, type TaskState } from './taskStates';

/** What an agent call was for: building, resolving a conflict with integration, reviewing, or fixing the task's pull request. */
export type CallStep = 'build' | 'resolve' | 'review' | 'pull_request';

export interface TimedCall {
  seq: number;
  at: string;
  role: AgentRole;
  step: CallStep;
  status: RunnerStatus;
  durationMs: number;
}

export interface TimedGateRun {
  seq: number;
  at: string;
  attempt: number;
  passed: boolean;
  durationMs: number;
}

/**
 * Where a task's time went. The one reading of it: trace, the run summary, the Runs tree and the
 * run view all show these numbers.
 */
export interface TaskTimings {
  /**
   * The task's time: while it was being built, gated, reviewed or sent back by the merge queue, over
   * all its tries. Never the time it waited for a person, nor in the merge queue.
   */
  totalMs: number;
  /** Actor calls, conflict resolutions included. */
  buildingMs: number;
  /** Runs of the task's own gate. */
  gatingMs: number;
  /** Critic calls. */
  reviewingMs: number;
  /** Approved, from GREEN until merged or sent back. */
  mergeQueueMs: number;
  /** Needing a person (NEEDS_HUMAN, resolving by hand) until they decided, and stopped mid-way until someone resumed the run. */
  waitingForHumanMs: number;
  /** Set while it is still waiting for a person. */
  waitingForHumanSince?: string;
  /** Calls for a pull request's fix, after the task merged: listed in `calls`, outside the task's time. */
  pullRequestFixesMs: number;
  calls: TimedCall[];
  gateRuns: TimedGateRun[];
}

/**
 * When the timings are read. `now` ends what is still going on; `live` says a process drives the
 * run, so time since its last event is work going on, not a run stopped and waiting to be resumed.
 * Without a clock the timings are as of the run's last event.
 */
export interface TimingClock {
  now: number;
  live: boolean;
}

/** States after which the task waits for nobody: it is merged, left out, or was cancelled with its run. */
const ENDED: ReadonlySet<TaskState> = new Set(['MERGED', 'SKIPPED', 'CANCELLED']);

export function taskTimings(
  run: Pick<RunState, 'stops' | 'updatedAt'>,
  task: Pick<TaskView, 'transitions' | 'calls' | 'gateRuns'>,
  clock?: TimingClock,
): TaskTimings {
  const lastEventAt = Date.parse(run.updatedAt);
  const now = Math.max(clock?.now ?? lastEventAt, lastEventAt);
  const stops = stoppedSpans(run, lastEventAt, now, clock?.live ?? false);

  let totalMs = 0;
  let mergeQueueMs = 0;
  let waitingForHumanMs = 0;
  let waitingForHumanSince: string | undefined;
  let started = false;
  task.transitions.forEach((tr, i) => {
    started ||= isInFlight(tr.to);
    const from = Date.parse(tr.at);
    const next = task.transitions[i + 1];
    const to = next ? Date.parse(next.at) : now;
    if (to < from) return;
    if (isWaitingForHuman(tr.to)) {
      waitingForHumanMs += to - from;
      if (!next) waitingForHumanSince = tr.at;
      return;
    }
    // While the run was stopped, a task it had started and not ended waited for someone to resume it.
    const stopped = overlap(from, to, stops);
    if (started && !ENDED.has(tr.to)) {
      waitingForHumanMs += stopped.ms;
      if (!next && stopped.ongoingSince !== undefined) waitingForHumanSince = new Date(Math.max(from, stopped.ongoingSince)).toISOString();
    }
    const driven = to - from - stopped.ms;
    if (isInFlight(tr.to) || isReturned(tr.to)) totalMs += driven;
    else if (isQueued(tr.to)) mergeQueueMs += driven;
  });

  const calls = task.calls.map((c): TimedCall => ({ seq: c.seq, at: c.at, role: c.role, step: stepOf(c), status: c.status, durationMs: c.durationMs }));
  const gateRuns = task.gateRuns.map(({ seq, at, attempt, passed, durationMs }) => ({ seq, at, attempt, passed, durationMs }));
  const sum = (steps: CallStep[]) => calls.reduce((ms, c) => (steps.includes(c.step) ? ms + c.durationMs : ms), 0);
  return {
    totalMs,
    buildingMs: sum(['build', 'resolve']),
    gatingMs: gateRuns.reduce((ms, g) => ms + g.durationMs, 0),
    reviewingMs: sum(['review']),
    mergeQueueMs,
    waitingForHumanMs,
    ...(waitingForHumanSince ? { waitingForHumanSince } : {}),
    pullRequestFixesMs: sum(['pull_request']),
    calls,
    gateRuns,
  };
}

function stepOf(call: AgentCallRecord): CallStep {
  // A merged task's calls are `watch` fixing its pull request.
  if (isDone(call.during)) return 'pull_request';
  if (call.role === 'critic') return 'review';
  return call.during === 'RESOLVING' ? 'resolve' : 'build';
}

interface Span {
  from: number;
  to: number;
  /** Still going on at `now`: the run has not been resumed since. */
  open: boolean;
}

/** The run's stops as sorted, disjoint spans up to `now`; a run nobody drives is stopped since its last event. */
function stoppedSpans(run: Pick<RunState, 'stops'>, lastEventAt: number, now: number, live: boolean): Span[] {
  const spans = run.stops.map((s): Span => (s.to === undefined ? { from: Date.parse(s.from), to: now, open: true } : { from: Date.parse(s.from), to: Date.parse(s.to), open: false }));
  if (!live) spans.push({ from: lastEventAt, to: now, open: true });
  spans.sort((a, b) => a.from - b.from);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.from <= last.to) {
      last.to = Math.max(last.to, span.to);
      last.open ||= span.open;
    } else merged.push({ ...span });
  }
  return merged;
}

/** How much of [from, to] the spans cover, and since when the run is stopped, if it still is. */
function overlap(from: number, to: number, spans: readonly Span[]): { ms: number; ongoingSince?: number } {
  let ms = 0;
  let ongoingSince: number | undefined;
  for (const span of spans) {
    ms += Math.max(0, Math.min(span.to, to) - Math.max(span.from, from));
    if (span.open && span.from <= to) ongoingSince = span.from;
  }
  return { ms, ...(ongoingSince !== undefined ? { ongoingSince } : {}) };
}
