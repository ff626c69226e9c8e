import type { FailedCommand, DecisionFact } from './decisionFact';
import type { GateCommandResult, RunEvent } from './events';
import type { Decision, RunState, TaskView } from './runState';

// What every part of the projection uses to write the decisions ledger.

export function taskOf(state: RunState, taskId: string): TaskView {
  const task = state.tasks[taskId];
  if (!task) throw new Error(`Event refers to unknown task "${taskId}"`);
  return task;
}

export function decide(state: RunState, e: RunEvent, kind: Decision['kind'], fact: DecisionFact, taskId?: string): void {
  state.decisions.push({ seq: e.seq, at: e.at, kind, ...(taskId ? { taskId } : {}), fact });
}

const lastLines = (text: string, count: number): string[] =>
  text.split('\n').filter((line) => line.trim()).slice(-count);

/** Lines of a failed gate command kept in the ledger: its failure excerpt (logs before 0.2: its last lines). */
const LEDGER_FAILURE_LINES = 40;

/** The first failed command of `commands`, with only the lines of its output the ledger shows. */
export function failedCommandOf(commands: readonly GateCommandResult[]): FailedCommand | undefined {
  const failed = commands.find((c) => c.exitCode !== 0);
  if (!failed) return undefined;
  const excerpt = failed.failure ? failed.failure.excerpt.split('\n').slice(0, LEDGER_FAILURE_LINES) : lastLines(failed.output, 12);
  return { command: failed.command, exitCode: failed.exitCode, timedOut: failed.timedOut, excerpt };
}
