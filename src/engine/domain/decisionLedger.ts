import type { RunEvent } from './events';
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

export const lastLines = (text: string, count: number): string[] =>
  text.split('\n').filter((line) => line.trim()).slice(-count);
