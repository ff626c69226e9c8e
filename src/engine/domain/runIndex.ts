import type { RunState, RunStatus } from './runState';

/** What `runs` and resume need to know about a run without reading its log. */
export interface RunIndexEntry {
  runId: string;
  goal: string;
  createdAt: string;
  updatedAt: string;
  status: RunStatus;
  lastSeq: number;
}

export const indexEntryOf = (state: RunState): RunIndexEntry => ({
  runId: state.runId,
  goal: state.goal,
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
  status: state.status,
  lastSeq: state.lastSeq,
});
