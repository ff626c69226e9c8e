// The timeline's integration row, from the events: the merge queue's merges and the integration
// gates run on them, one after the other in the top lane, and below them the after-merge fixes
// (a task the queue sent back, from the conflict or failed gate until it is queued again). Pure.
import type { QueueBatchRecord, TransitionRecord } from '../../engine/domain/runState';
import { isQueued, isReturned, type TaskState } from '../../engine/domain/taskStates';

interface Bar {
  x: number;
  width: number;
  from: number;
  to: number;
}

/** Merging a batch (or re-merging part of it while bisecting), until its gate starts. */
export interface MergeStep extends Bar {
  kind: 'merging';
  batch: number;
  taskIds: string[];
  /** No gate has ended this merging yet: it runs on to now. */
  open: boolean;
}

/** An integration gate, for the time its commands took. */
export interface GateStep extends Bar {
  kind: 'gate';
  batch: number;
  seq: number;
  passed: boolean;
}

/** A task sent back by the merge queue (a conflict, a failed integration gate) until it is queued again or stops. */
export interface AfterMergeFix extends Bar {
  taskId: string;
  open: boolean;
  /** Why the queue sent it back (the transition's reason). */
  reason: string;
}

export interface IntegrationRow {
  y: number;
  steps: Array<MergeStep | GateStep>;
  fixes: AfterMergeFix[];
}

type Place = (from: number, to: number) => { x: number; width: number };

/** Each batch merges from its start to its first gate, and again between gates (bisection); a batch with no gate yet merges on to now. */
export function integrationSteps(batches: readonly QueueBatchRecord[], now: number, place: Place): Array<MergeStep | GateStep> {
  const steps: Array<MergeStep | GateStep> = [];
  for (const b of batches) {
    let mergingFrom = Date.parse(b.startedAt);
    for (const g of b.gates) {
      const gateTo = Date.parse(g.at);
      const gateFrom = gateTo - g.durationMs;
      // A gate outside the queue's batches (batch 0, a 0.1 log's one gate at the end) merged nothing first.
      if (b.batch > 0 && gateFrom > mergingFrom) steps.push({ kind: 'merging', batch: b.batch, taskIds: b.taskIds, open: false, from: mergingFrom, to: gateFrom, ...place(mergingFrom, gateFrom) });
      steps.push({ kind: 'gate', batch: b.batch, seq: g.seq, passed: g.passed, from: gateFrom, to: gateTo, ...place(gateFrom, gateTo) });
      mergingFrom = gateTo;
    }
    if (b.gates.length === 0 && b.batch > 0) {
      const to = Math.max(mergingFrom, now);
      steps.push({ kind: 'merging', batch: b.batch, taskIds: b.taskIds, open: true, from: mergingFrom, to, ...place(mergingFrom, to) });
    }
  }
  return steps;
}

/** Where a fix ends: the task is back in the queue, merged, or left to a person (or out of the run). */
const endsFix = (state: TaskState): boolean => isQueued(state) || ['MERGED', 'NEEDS_HUMAN', 'SKIPPED', 'CANCELLED', 'PENDING'].includes(state);

/** The after-merge fixes of one task, from its transitions. */
export function afterMergeFixes(taskId: string, transitions: readonly TransitionRecord[], now: number, place: Place): AfterMergeFix[] {
  const fixes: AfterMergeFix[] = [];
  let open: { from: number; reason: string } | undefined;
  for (const tr of transitions) {
    const at = Date.parse(tr.at);
    // RESOLVING straight from PENDING: a resolution started again after an interruption.
    if (!open && (isReturned(tr.to) || tr.to === 'RESOLVING')) open = { from: at, reason: tr.reason };
    else if (open && endsFix(tr.to)) {
      fixes.push({ taskId, open: false, from: open.from, to: at, reason: open.reason, ...place(open.from, at) });
      open = undefined;
    }
  }
  if (open) {
    const to = Math.max(open.from, now);
    fixes.push({ taskId, open: true, from: open.from, to, reason: open.reason, ...place(open.from, to) });
  }
  return fixes;
}
