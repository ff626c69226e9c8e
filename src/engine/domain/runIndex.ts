import type { RunStatus } from './runState';

/** What `runs` and resume need to know about a run without reading its log. */
export interface RunIndexEntry {
  runId: string;
  goal: string;
  createdAt: string;
  updatedAt: string;
  status: RunStatus;
  lastSeq: number;
}
