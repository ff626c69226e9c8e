import type { CandidatesView, CandidateView } from './candidates';
import { decide, failedCommandOf, taskOf } from './decisionLedger';
import type { ProjectionHandlers } from './projectionHandlers';
import type { RunState, TaskView } from './runState';
import { ZERO_USAGE } from './usage';

/** How a task's candidates fold (run/candidates.ts): each one's worktree, gate and usage, the skipped, and the pick. */
export const CANDIDATE_HANDLERS = {
  candidate_started(state, e) {
    const view = candidatesOf(state, e.taskId);
    const entry: CandidateView = {
      candidate: e.candidate,
      agent: e.agent,
      ...(e.model ? { model: e.model } : {}),
      branch: e.branch,
      path: e.path,
      baseCommit: e.baseCommit,
      filesChanged: [],
      commands: [],
      usage: ZERO_USAGE,
    };
    // A candidate started again after a crash starts over: its earlier start is replaced.
    view.entries = [...view.entries.filter((c) => c.candidate !== e.candidate), entry].sort((a, b) => a.candidate - b.candidate);
    view.count = Math.max(view.count, e.candidate);
  },
  candidate_finished(state, e) {
    const entry = candidatesOf(state, e.taskId).entries.find((c) => c.candidate === e.candidate);
    if (!entry) throw new Error(`Event ${e.seq}: candidate ${e.candidate} of "${e.taskId}" finished without starting`);
    entry.passed = e.passed;
    entry.commands = e.commands;
    entry.filesChanged = e.filesChanged;
    if (e.commit) entry.commit = e.commit;
    if (e.failure) entry.failure = e.failure;
    if (e.key) state.gateCache[e.key] = { seq: e.seq, taskId: e.taskId, attempt: 1, passed: e.passed, commands: e.commands };
    const failed = failedCommandOf(e.commands);
    decide(
      state,
      e,
      'gate',
      { type: 'candidate_finished', candidate: e.candidate, passed: e.passed, ...(failed ? { failed } : {}), ...(e.failure ? { failure: e.failure } : {}) },
      e.taskId,
    );
  },
  candidate_skipped(state, e) {
    candidatesOf(state, e.taskId).skipped.push({ candidate: e.candidate, reason: e.reason });
    decide(state, e, 'run', { type: 'candidate_skipped', candidate: e.candidate, reason: e.reason }, e.taskId);
  },
  candidate_picked(state, e) {
    const view = candidatesOf(state, e.taskId);
    view.picked = { candidate: e.candidate, by: e.by, reasons: e.reasons, passed: e.passed };
    // Until the task's build takes it in (a person's choice too: their retry builds the task on it).
    view.settled = false;
    decide(state, e, e.by === 'person' ? 'human' : e.by, { type: 'candidate_picked', candidate: e.candidate, by: e.by, reasons: e.reasons, passed: e.passed }, e.taskId);
  },
} satisfies Partial<ProjectionHandlers>;

/** The candidates of a task, made on its first candidate event. */
function candidatesOf(state: RunState, taskId: string): CandidatesView {
  const task = taskOf(state, taskId);
  task.candidates ??= { count: 0, entries: [], skipped: [], settled: false };
  return task.candidates;
}

/**
 * The pick is in the task's worktree once its build finishes: the task's loop goes on from it, and a
 * retry continues the conversation of the pick's actor.
 */
export function settleCandidates(task: TaskView): void {
  const view = task.candidates;
  if (!view?.picked || view.settled) return;
  view.settled = true;
  const pick = view.entries.find((c) => c.candidate === view.picked!.candidate);
  task.actorSessionId = pick?.sessionId;
  task.actorSessionAgent = pick?.sessionId ? pick.agent : undefined;
}
