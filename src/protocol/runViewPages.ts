// What the run view gets first and what it asks for later. A long run's state is mostly
// history: every transition, attempt, call and gate run of every task (the timeline's), and
// tens of thousands of decisions (the ledger's). The first paint needs neither whole, so the
// view is sent its state with those left out (firstPage) and asks for them when it shows them;
// events keep folding onto whatever it holds. Pure: the extension pages, the webview merges.
import type { TranscriptLine } from '../engine/domain/events';
import type { RunState, TaskView, TranscriptRecord } from '../engine/domain/runState';

/** One batch of a call's transcript, as the log holds it (an agent_transcript event's lines). */
export interface TranscriptBatch {
  /** The event's seq. */
  seq: number;
  lines: TranscriptLine[];
  /** Lines left out just before these (past the per-call cap). */
  omitted?: number;
}

/** A call's transcript: its batches in order. */
export interface TranscriptCallLines {
  /** TranscriptRecord.seq. */
  seq: number;
  batches: TranscriptBatch[];
}

/** The newest decisions the first page carries: as many as the ledger lists unfiltered. */
export const FIRST_PAGE_DECISIONS = 500;

/** What a task's first page leaves out: its history, and its gate's and critic's last full answers. */
export type TaskHistory = Pick<TaskView, 'transitions' | 'attempts' | 'calls' | 'gateRuns' | 'transcripts'>;

export interface RunHistories {
  tasks: Record<string, TaskHistory>;
  /** The run's own transcripts (planning, the integration's fixes). */
  transcripts: TranscriptRecord[];
}

/** What a first page left out: the older decisions (a count), and the histories. */
export interface PagedOut {
  decisions: number;
  histories: boolean;
}

/** A copy of `state` without its histories and with only the newest decisions; `state` is not changed. */
export function firstPage(state: RunState): { state: RunState; omitted: PagedOut } {
  const tasks: Record<string, TaskView> = {};
  for (const [id, task] of Object.entries(state.tasks)) {
    const { lastGate: _gate, lastVerdict: _verdict, ...rest } = task;
    tasks[id] = { ...rest, transitions: [], attempts: [], calls: [], gateRuns: [], transcripts: [] };
  }
  const decisions = state.decisions.slice(-FIRST_PAGE_DECISIONS);
  const { lastGate: _gate, lastFailedGate: _failed, ...integration } = state.integration;
  // Gate output is the engine's to keep: the view shows the baseline's verdicts, never the cache's results.
  const baseline = state.baseline && { ...state.baseline, commands: state.baseline.commands.map((c) => ({ ...c, output: '' })) };
  return {
    state: { ...state, tasks, decisions, integration, transcripts: [], gateCache: {}, ...(baseline ? { baseline } : {}) },
    omitted: { decisions: state.decisions.length - decisions.length, histories: true },
  };
}

export function historiesOf(state: RunState): RunHistories {
  const tasks: Record<string, TaskHistory> = {};
  for (const [id, t] of Object.entries(state.tasks)) {
    tasks[id] = { transitions: t.transitions, attempts: t.attempts, calls: t.calls, gateRuns: t.gateRuns, transcripts: t.transcripts };
  }
  return { tasks, transcripts: state.transcripts };
}

/** Puts histories (taken from the same state, at the same seq) into a first page. */
export function addHistories(state: RunState, histories: RunHistories): void {
  for (const [id, history] of Object.entries(histories.tasks)) {
    const task = state.tasks[id];
    if (task) Object.assign(task, history);
  }
  state.transcripts = histories.transcripts;
}
