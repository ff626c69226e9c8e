import type { RunnerStatus, TranscriptLine } from './events';
import { taskOf } from './decisionLedger';
import type { ProjectionHandlers } from './projectionHandlers';
import type { RunState, TranscriptRecord } from './runState';

/**
 * The projection of agent transcripts: each call's record (where its batches are, its newest
 * line), never the lines themselves, which stay in the log (see TranscriptRecord).
 */
export const TRANSCRIPT_HANDLERS = {
  agent_transcript(state, e) {
    const task = e.taskId === null ? undefined : taskOf(state, e.taskId);
    const records = task ? task.transcripts : state.transcripts;
    let record: TranscriptRecord | undefined;
    if (e.call === undefined) {
      record = {
        seq: e.seq,
        at: e.at,
        role: e.role ?? 'actor',
        attempt: e.attempt ?? 0,
        ...(e.purpose ? { purpose: e.purpose } : {}),
        ...(e.candidate !== undefined ? { candidate: e.candidate } : {}),
        // A pull request's fix comes after the task merged: it belongs to none of its attempts.
        ...(task && task.attempts.length > 0 && e.purpose !== 'fix' ? { attemptIndex: task.attempts.length - 1 } : {}),
        batches: [],
        lines: 0,
        omitted: 0,
        updatedAt: e.at,
      };
      records.push(record);
    } else {
      record = findTranscript(records, e.call);
      // A batch of a call this log does not start cannot be placed; it is only text, so it is left out.
      if (!record) return;
    }
    record.batches.push(e.seq);
    record.lines += e.lines.length;
    record.omitted += e.omitted ?? 0;
    for (const line of e.lines) record.last = followedBy(record.last, line);
    record.updatedAt = e.at;
  },
} satisfies Partial<ProjectionHandlers>;

/** The call's runner_call closes its transcript with how it ended. */
export function endTranscript(state: RunState, taskId: string | null, seq: number, status: RunnerStatus): void {
  const records = taskId === null ? state.transcripts : state.tasks[taskId]?.transcripts;
  const record = records && findTranscript(records, seq);
  if (record) record.ended = status;
}

/** At a resume, calls that never ended were cut off by the process that stopped. */
export function interruptOpenTranscripts(state: RunState): void {
  const close = (records: TranscriptRecord[]) => {
    for (const record of records) record.ended ??= 'interrupted';
  };
  close(state.transcripts);
  for (const task of Object.values(state.tasks)) close(task.transcripts);
}

function findTranscript(records: TranscriptRecord[], seq: number): TranscriptRecord | undefined {
  for (let i = records.length - 1; i >= 0; i--) if (records[i]!.seq === seq) return records[i];
  return undefined;
}

/** The newest line after `line`: a repeat of the one before adds to its count. */
export function followedBy(previous: TranscriptLine | undefined, line: TranscriptLine): TranscriptLine {
  if (previous && previous.kind === line.kind && previous.text === line.text) return { ...line, n: (previous.n ?? 1) + (line.n ?? 1) };
  return line;
}
