import type { GateCommandResult, RunEvent } from './events';
import type { Decision, RunState, TaskView } from './runState';
import type { CriticVerdict } from './verdict';

// What every part of the projection uses to write the decisions ledger.

export function taskOf(state: RunState, taskId: string): TaskView {
  const task = state.tasks[taskId];
  if (!task) throw new Error(`Event refers to unknown task "${taskId}"`);
  return task;
}

export function decide(
  state: RunState,
  e: RunEvent,
  kind: Decision['kind'],
  summary: string,
  details?: string[],
  taskId?: string,
): void {
  state.decisions.push({ seq: e.seq, at: e.at, kind, summary, ...(taskId ? { taskId } : {}), ...(details?.length ? { details } : {}) });
}

export const findingLines = (verdict: CriticVerdict): string[] =>
  verdict.findings.map((f) => `[${f.severity}/${f.category}] ${f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''}${f.message}`);

const lastLines = (text: string, count: number): string[] =>
  text.split('\n').filter((line) => line.trim()).slice(-count);

/** Lines of a failed gate command kept in the ledger: its failure excerpt (logs before 0.2: its last lines). */
const LEDGER_FAILURE_LINES = 40;
export const failureLines = (failed: GateCommandResult): string[] =>
  failed.failure ? failed.failure.excerpt.split('\n').slice(0, LEDGER_FAILURE_LINES) : lastLines(failed.output, 12);
