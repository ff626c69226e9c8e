import type { RunState } from '../../engine/domain/runState';
import { isWaitingForHuman } from '../../engine/domain/taskStates';
import type { RunListEntry } from '../../protocol/engineProtocol';
import { runPhase } from '../tree/presentation';
import { isResumable } from './resumable';
import { counted } from '../../engine/text/counted';
import { countSentence } from '../../engine/domain/taskCounts';

/** Something only the human can move on: one row of the Needs You view. */
export type AttentionItem =
  | { kind: 'task'; folder: string; runId: string; taskId: string; label: string; reason: string }
  | { kind: 'planApproval'; folder: string; runId: string; label: string; reason: string }
  | { kind: 'paused'; folder: string; runId: string; label: string; reason: string }
  /** Nobody drives it and Resume would work on (the window or the engine went away mid-run). */
  | { kind: 'stopped'; folder: string; runId: string; label: string; reason: string }
  /** Planning failed (or stopped with the window): there is nothing to resume, only to plan again or discard. */
  | { kind: 'planFailed'; folder: string; runId: string; label: string; reason: string }
  | { kind: 'conflict'; folder: string; runId: string; taskId: string; label: string; reason: string };

/** A plan that is drafted and waits for Approve / Edit / Cancel (nobody is planning it any more). */
export const awaitsApproval = (summary: RunListEntry, state: RunState | undefined): boolean =>
  summary.status === 'planning' && !summary.active && (state?.plan.tasks.length ?? 1) > 0;

/** Everything in one run that waits for the human, in the order a human would handle it. */
export function attentionItems(folder: string, summary: RunListEntry, state: RunState | undefined): AttentionItem[] {
  const base = { folder, runId: summary.runId };
  const items: AttentionItem[] = [];
  if (awaitsApproval(summary, state)) {
    items.push({ ...base, kind: 'planApproval', label: `Review the plan: ${summary.goal}`, reason: state ? `${counted(state.plan.tasks.length, 'task')} drafted` : 'a plan is drafted' });
  }
  if (!state) return items;
  const phase = runPhase(summary, state);
  if (state.status === 'paused') {
    items.push({ ...base, kind: 'paused', label: `Run paused: ${state.goal}`, reason: state.pausedReason ?? 'paused' });
  } else if (phase === 'stopped' && isResumable({ folder, summary, state })) {
    items.push({ ...base, kind: 'stopped', label: `Run stopped: ${state.goal}`, reason: `${countSentence(summary)}; Resume goes on where it stopped` });
  } else if (state.plan.tasks.length === 0 && (state.status === 'failed' || phase === 'stopped')) {
    // Failed, or stopped when the window closed while it planned: either way, planned again.
    const failed = state.status === 'failed';
    const reason = failed ? (state.finishedSummary ?? 'the planner gave no plan') : 'the window closed while the plan was drafted';
    items.push({ ...base, kind: 'planFailed', label: `${failed ? 'Planning failed' : 'Planning stopped'}: ${state.goal}`, reason });
  }
  // Only what waits for a person: a conflict its agent is still resolving is not theirs yet.
  for (const taskId of state.taskOrder) {
    const task = state.tasks[taskId];
    if (!task || !isWaitingForHuman(task.state)) continue;
    const problem = task.queueProblem;
    if (task.state === 'HUMAN_RESOLVING') {
      items.push({ ...base, kind: 'conflict', taskId, label: `Resolving by hand: ${taskId}`, reason: 'edit its worktree, then Continue' });
    } else if (problem?.kind === 'conflict') {
      items.push({ ...base, kind: 'conflict', taskId, label: `Merge conflict: ${taskId}`, reason: `in ${problem.files.join(', ')} — ${task.lastReason}` });
    } else if (problem?.kind === 'integration_gate') {
      items.push({ ...base, kind: 'conflict', taskId, label: `Integration gate fails: ${taskId}`, reason: task.lastReason });
    } else {
      items.push({ ...base, kind: 'task', taskId, label: `${taskId}: ${task.title}`, reason: task.lastReason });
    }
  }
  return items;
}
