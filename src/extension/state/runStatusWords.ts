import { undecidedBaselineFailures } from '../../engine/domain/gateProjection';
import { countSentence } from '../../engine/domain/taskCounts';
import { isWaitingForHuman } from '../../engine/domain/taskStates';
import { counted } from '../../engine/text/counted';
import { formatCost, phaseWords, plainText, RUN_LOOK, runPhase } from '../tree/presentation';
import type { RunEntry } from './runsModel';
import { goalHeadline } from '../../engine/text/clip';

/** What the status bar item says of a run, and whether it asks for attention. */
export interface RunStatusWords {
  /** "$(warning) Taskloom 1/5 · 3 need you · $0.10": merged of all, who waits, the cost. */
  text: string;
  tooltip: string;
  attention: boolean;
}

/**
 * The status bar's words for a run. They are the run's news that a person's next step makes
 * outdated (who needs you changes with each decision, a pause ends with a resume), so they live
 * here, where they update, rather than in toasts, which cannot be closed once shown.
 */
export function runStatusWords(entry: RunEntry): RunStatusWords {
  const { summary, state } = entry;
  const phase = runPhase(summary, state);
  const waiting = state ? state.taskOrder.filter((id) => isWaitingForHuman(state.tasks[id]!.state)) : [];
  const cost = state ? ` · ${formatCost(state.usage.total.costUsd)}` : '';
  const needs = waiting.length ? ` · ${counted(waiting.length, 'needs you', 'need you')}` : '';
  const lines = [plainText(goalHeadline(summary.goal), 120), `${phaseWords(phase)}: ${countSentence(summary)}.`];
  if (waiting.length) lines.push(`${listed(waiting)} ${waiting.length === 1 ? 'needs' : 'need'} you: see Needs You.`);
  // Paused for a choice about its base, a plain Resume would only pause again: the reason names the ways on.
  if (phase === 'paused' && state?.pausedReason && undecidedBaselineFailures(state).length) lines.push(`Paused for your choice: ${plainText(state.pausedReason, 600)}.`);
  else if (phase === 'paused' && state?.pausedReason) lines.push(`Paused: ${plainText(state.pausedReason, 200)}. Resume it when you are ready.`);
  lines.push('Click to show the run.');
  return {
    text: `$(${RUN_LOOK[phase].icon}) Taskloom ${summary.merged}/${summary.total}${needs}${cost}`,
    tooltip: lines.join('\n'),
    attention: phase === 'needs_human' || phase === 'paused' || phase === 'failed',
  };
}

/** "a", "a and b", "a, b and c", "a, b and 2 more". */
function listed(ids: readonly string[]): string {
  if (ids.length <= 2) return ids.join(' and ');
  return ids.length === 3 ? `${ids[0]}, ${ids[1]} and ${ids[2]}` : `${ids[0]}, ${ids[1]} and ${ids.length - 2} more`;
}
