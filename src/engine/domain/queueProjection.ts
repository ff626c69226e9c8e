import type { EventOf } from './events';
import { decide, taskOf } from './decisionLedger';
import type { ProjectionHandlers } from './projectionHandlers';
import type { RunState } from './runState';

/** The projection of the merge queue's and the overlap scheduler's events (the rest is in projection.ts). */
export const QUEUE_HANDLERS = {
  integration_prepared(state, e) {
    // Release 0.1 prepared integration once, after every task had ended: the run was integrating.
    if (e.v === undefined) state.status = 'integrating';
    state.integration.branch = e.branch;
    state.integration.path = e.path;
  },
  merge_queued(state, e) {
    const task = taskOf(state, e.taskId);
    task.greenCommit = e.commit;
    task.queueProblem = undefined;
    task.resolution = undefined;
    decide(state, e, 'queue', { type: 'merge_queued', commit: e.commit }, e.taskId);
  },
  queue_batch(state, e) {
    state.integration.batches = Math.max(state.integration.batches, e.batch);
    state.integration.batchRecords.push({ batch: e.batch, taskIds: [...e.taskIds], startedAt: e.at, gates: [] });
    decide(state, e, 'queue', { type: 'queue_batch', batch: e.batch, base: e.base, taskIds: e.taskIds });
  },
  merge_done(state, e) {
    if (!state.integration.merged.includes(e.taskId)) state.integration.merged.push(e.taskId);
    state.integration.conflicts = state.integration.conflicts.filter((c) => c.taskId !== e.taskId);
    state.integration.head = e.commit;
    const task = taskOf(state, e.taskId);
    task.mergeCommit = e.commit;
    const hadWork = task.attempts.some((a) => a.commit);
    const how = !e.alreadyMerged ? 'merged' : hadWork ? 'already_merged' : 'no_changes';
    decide(state, e, 'merge', { type: 'merge_done', commit: e.commit, how, into: state.integration.branch ?? 'integration' }, e.taskId);
    // Release 0.1 merged GREEN tasks at the end of the run and had no MERGED state: a merge was the end of the task.
    if (e.v === undefined && (task.state === 'GREEN' || task.state === 'UNVERIFIED_BY_CRITIC')) {
      const reason = 'merged into the integration branch (recorded by release 0.1)';
      task.transitions.push({ seq: e.seq, at: e.at, from: task.state, to: 'MERGED', event: 'MERGE_VERIFIED', reason });
      task.state = 'MERGED';
      task.lastReason = reason;
    }
  },
  merge_conflict(state, e) {
    state.integration.conflicts = state.integration.conflicts.filter((c) => c.taskId !== e.taskId);
    state.integration.conflicts.push({ taskId: e.taskId, files: e.files });
    taskOf(state, e.taskId).queueProblem = { kind: 'conflict', files: e.files };
    decide(state, e, 'conflict', { type: 'merge_conflict', files: e.files }, e.taskId);
  },
  queue_bisected(state, e) {
    decide(state, e, 'queue', { type: 'queue_bisected', batch: e.batch, culprit: e.culprit, merged: e.merged, requeued: e.requeued }, e.culprit);
  },
  task_synced(state, e) {
    const task = taskOf(state, e.taskId);
    // From here on the task's own change is measured against the integration commit it took in.
    task.baseCommit = e.integrationCommit;
    task.worktreePath = e.path;
    task.builtOnMerged = [...state.integration.merged];
    if (e.added) task.needsSetup = true;
    if (e.port !== undefined) task.port = e.port;
    if (e.conflicts.length) task.resolution = { files: e.conflicts, ours: e.from, theirs: e.integrationCommit };
    decide(state, e, e.conflicts.length ? 'conflict' : 'queue', { type: 'task_synced', integrationCommit: e.integrationCommit, conflicts: e.conflicts }, e.taskId);
  },
  overlaps_predicted(state, e) {
    state.integration.overlapMode = e.mode;
    state.integration.overlaps = e.pairs;
    state.integration.overlapsPredicted = true;
    if (e.pairs.length === 0) return;
    decide(state, e, 'overlap', { type: 'overlaps_predicted', mode: e.mode, pairs: e.pairs });
  },
  overlap_detected(state, e) {
    const task = taskOf(state, e.taskId);
    const known = task.overlapWarnings.find((w) => w.otherTaskId === e.otherTaskId);
    if (known) known.files = [...new Set([...known.files, ...e.files])];
    else task.overlapWarnings.push({ otherTaskId: e.otherTaskId, files: [...e.files] });
    decide(state, e, 'overlap', { type: 'overlap_detected', otherTaskId: e.otherTaskId, files: e.files }, e.taskId);
  },
} satisfies Partial<ProjectionHandlers>;

/** An integration gate joins the batch it ran on (its `attempt`); one outside any batch gets a record of its own. */
export function recordIntegrationGate(state: RunState, e: EventOf<'gate_result'>): void {
  const durationMs = e.commands.reduce((sum, c) => sum + c.durationMs, 0);
  const gate = { seq: e.seq, at: e.at, passed: e.passed, durationMs };
  const records = state.integration.batchRecords;
  const batch = e.attempt > 0 ? [...records].reverse().find((r) => r.batch === e.attempt) : undefined;
  if (batch) batch.gates.push(gate);
  else records.push({ batch: 0, taskIds: [...(e.taskIds ?? [])], startedAt: new Date(Date.parse(e.at) - durationMs).toISOString(), gates: [gate] });
}
