import { stripVTControlCharacters } from 'node:util';
import type { TaskState } from '../engine/domain/taskStates';
import { isInterruptedStep, isNotStartedByCancel, taskStateWords, type TaskRunContext } from '../engine/domain/stateWords';

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (text: string) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);
export const cyan = paint(36);

/** A transition's state as the run saw it then: driven, and going on. */
const AS_IT_HAPPENED: TaskRunContext = { driven: true, status: 'running' };

/**
 * A task state in the words every view uses, coloured by how it stands. `run`: whether a process
 * drives the run now (without one, a step under way reads "building, interrupted") and its status
 * (a cancelled run's tasks that never started read so, not "pending").
 */
export function colorState(state: TaskState, run: TaskRunContext = AS_IT_HAPPENED): string {
  const words = taskStateWords(state, run);
  if (isInterruptedStep(state, run.driven)) return yellow(words);
  if (isNotStartedByCancel(state, run)) return dim(words);
  if (state === 'MERGED' || state === 'GREEN') return green(words);
  if (state === 'NEEDS_HUMAN' || state === 'HUMAN_RESOLVING' || state === 'MECHANICAL_FAILED' || state === 'CANCELLED' || state === 'MERGE_CONFLICT' || state === 'INTEGRATION_FAILED') {
    return red(words);
  }
  if (state === 'SKIPPED' || state === 'CHANGES_REQUIRED' || state === 'UNVERIFIED_BY_CRITIC') return yellow(words);
  return cyan(words);
}

export { formatDuration, formatTokens, formatUsd } from '../engine/text/amountWords';
/** Bytes on disk in binary units: 0 B, 812 KiB, 4.2 MiB, 1.3 GiB. */
export { formatBytes } from '../engine/text/formatBytes';

/** Left-aligned plain-text table; widths ignore colour codes. */
export function table(rows: string[][]): string {
  const visible = (s: string) => stripVTControlCharacters(s).length;
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? ''))));
  return rows
    .map((r) => r.map((cell, i) => cell + ' '.repeat(widths[i]! - visible(cell))).join('  ').trimEnd())
    .join('\n');
}
