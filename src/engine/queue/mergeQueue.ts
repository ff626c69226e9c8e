import type { GateResult } from '../gate/runGate';
import { topologicalOrder } from '../plan/planGraph';
import { integrationGate } from '../session/integrationGate';
import { taskCommits } from '../session/taskCommits';
import type { RunContext } from '../session/runContext';
import { findFirstFailingPrefix } from './bisect';
import { counted } from '../text/counted';

/** At most this many ready tasks are merged and gated together; a failing batch is bisected. */
export const MAX_BATCH = 8;

interface Candidate {
  taskId: string;
  /** The integration commit after merging the task, on top of the merges before it in the batch. */
  commit: string;
}

const orders = new WeakMap<object, string[]>();

/** Approved tasks waiting to merge, in dependency order (GREEN, or UNVERIFIED_BY_CRITIC where the run allows it). */
export function readyToMerge(ctx: RunContext): string[] {
  const { state } = ctx.session;
  // The plan does not change once a run is driven: its order is worked out once, not at every step.
  let order = orders.get(state.plan);
  if (!order) orders.set(state.plan, (order = topologicalOrder(state.plan)));
  return order.filter((id) => {
    const s = state.tasks[id]?.state;
    return s === 'GREEN' || s === 'UNVERIFIED_BY_CRITIC';
  });
}

/**
 * One turn of the merge queue: merges the ready tasks (up to MAX_BATCH, dependency order,
 * --no-ff) onto the verified integration head, runs the integration gate once on the result, and
 * publishes it when it passes. A conflicting merge is taken out of the batch and goes back to its
 * task (MERGE_CONFLICT); when the gate fails, bisection finds the first merge that fails it: the
 * merges before it are published, it goes back to its task's agent with the gate's failure
 * (INTEGRATION_FAILED, within the task's gate-fix limit) and the ones after it return to the queue.
 */
export async function runMergeBatch(ctx: RunContext): Promise<void> {
  const { session, integration } = ctx;
  const ids = readyToMerge(ctx).slice(0, MAX_BATCH);
  if (ids.length === 0) return;
  for (const id of ids) await pinApprovedWork(ctx, id);
  const base = await integration.verifiedHead();
  await integration.checkout(base);
  const batch = session.state.integration.batches + 1;
  session.emit({ type: 'queue_batch', batch, base, taskIds: ids });

  const candidates: Candidate[] = [];
  for (const taskId of ids) {
    if (ctx.signal.aborted) break;
    const task = session.task(taskId);
    const depsIn = task.dependsOn.every((d) => session.task(d).state === 'MERGED' || candidates.some((c) => c.taskId === d));
    if (!depsIn) continue;
    session.transition(taskId, 'MERGE_STARTED', `merge queue batch ${batch}`);
    const merge = await integration.mergeCandidate(task.greenCommit!, taskCommits(session, task).mergeIntoIntegration());
    if (merge.status === 'merged') {
      candidates.push({ taskId, commit: merge.commit });
    } else if (merge.status === 'already') {
      session.emit({ type: 'merge_done', taskId, commit: merge.commit, alreadyMerged: true });
      session.transition(taskId, 'MERGE_VERIFIED', 'its work is already in the integration branch');
    } else {
      sendBackConflict(ctx, taskId, merge.files);
    }
  }
  if (candidates.length === 0) {
    await integration.checkout(base);
    return;
  }

  const whole = await gateOn(ctx, batch, candidates);
  if (whole === 'stopped') return requeue(ctx, base, candidates, 'the run stopped while the batch was being gated');
  if (whole) {
    await publish(ctx, base, candidates);
    return;
  }

  const found =
    candidates.length === 1
      ? { lastPassing: 0, culprit: 1 }
      : await findFirstFailingPrefix(candidates.length, (prefix) => gateOn(ctx, batch, candidates.slice(0, prefix)));
  if (found === 'stopped') return requeue(ctx, base, candidates, 'the run stopped during the bisection of the batch');
  const merged = candidates.slice(0, found.lastPassing);
  const culprit = candidates[found.culprit - 1]!;
  const after = candidates.slice(found.culprit);
  if (candidates.length > 1) {
    session.emit({
      type: 'queue_bisected',
      batch,
      culprit: culprit.taskId,
      merged: merged.map((c) => c.taskId),
      requeued: after.map((c) => c.taskId),
    });
  }
  const newHead = merged.length ? await publish(ctx, base, merged) : base;
  sendBackIntegrationFailure(ctx, culprit.taskId, merged.length);
  for (const c of after) session.transition(c.taskId, 'REQUEUED', `batch ${batch} was bisected; merged again on top of what passed`);
  await integration.checkout(newHead);
}

/**
 * The queue merges exactly the commit that passed the task's gate and critic. A 0.1 log has no
 * such record (its branch tip is that commit); after a crash the branch can hold a resolution or
 * fix that was never approved, which is dropped here.
 */
async function pinApprovedWork(ctx: RunContext, taskId: string): Promise<void> {
  const { session, worktrees } = ctx;
  const tip = await worktrees.taskTip(taskId);
  const approved = session.task(taskId).greenCommit;
  if (!approved) {
    if (!tip) throw new Error(`task "${taskId}" has no branch to merge`);
    session.emit({ type: 'merge_queued', taskId, commit: tip });
  } else if (tip !== approved) {
    await worktrees.restoreTaskBranch(taskId, approved);
  }
}

/** Runs the integration gate on the first merges of the batch, checked out in the integration worktree. */
async function gateOn(ctx: RunContext, batch: number, prefix: Candidate[]): Promise<boolean | 'stopped'> {
  const commit = prefix.at(-1)!.commit;
  await ctx.integration.checkout(commit);
  // The merges may change what the setup installs (a task added a dependency): it runs on each commit gated.
  const gate: GateResult = await integrationGate(ctx, commit, { attempt: batch, taskIds: prefix.map((c) => c.taskId) });
  if (gate.cancelled || ctx.signal.aborted) return 'stopped';
  // Not a verdict on the merges: nothing ran. Bisecting would send every task back for nothing.
  if (gate.sandboxFailure) {
    ctx.pause(`the integration gate did not run: ${gate.sandboxFailure} — Doctor checks the sandbox; then resume`);
    return 'stopped';
  }
  return gate.passed;
}

/** Publishes the merges (the branch moves first, so a crash before the events only repeats a merge that is found already done). */
async function publish(ctx: RunContext, base: string, merged: Candidate[]): Promise<string> {
  const { session, integration, worktrees } = ctx;
  const head = merged.at(-1)!.commit;
  await integration.publish(head, base);
  for (const c of merged) {
    session.emit({ type: 'merge_done', taskId: c.taskId, commit: c.commit, alreadyMerged: false });
    session.transition(c.taskId, 'MERGE_VERIFIED', `merged, and the integration gate passed on ${head.slice(0, 10)}`);
  }
  // A merged task's worktree is no longer needed by it; git decides that it really is merged and
  // clean. It is parked for the next task to recycle, as long as the run's task checkouts stay within maxParallel.
  const poolSize = session.state.config.maxParallel;
  for (const c of merged) await worktrees.removeMergedTaskWorktree(c.taskId, head, { poolSize });
  return head;
}

async function requeue(ctx: RunContext, base: string, candidates: Candidate[], reason: string): Promise<void> {
  for (const c of candidates) ctx.session.transition(c.taskId, 'REQUEUED', reason);
  await ctx.integration.checkout(base);
}

function sendBackConflict(ctx: RunContext, taskId: string, files: string[]): void {
  const { session } = ctx;
  const limit = session.state.config.maxGateFixAttempts;
  session.emit({ type: 'merge_conflict', taskId, files });
  session.transition(taskId, 'MERGE_CONFLICTED', `merging it conflicts in ${files.join(', ')}; its agent resolves the conflict`);
  if (session.task(taskId).mergeConflicts > limit) {
    session.transition(taskId, 'EXCEEDED_LIMIT', `merging still conflicts in ${files.join(', ')} after ${counted(limit, 'resolution')}`);
  }
}

function sendBackIntegrationFailure(ctx: RunContext, taskId: string, mergedBefore: number): void {
  const { session } = ctx;
  const gate = session.state.integration.lastFailedGate;
  const failed = gate?.commands.find((c) => c.exitCode !== 0);
  const why = failed ? `\`${failed.command}\` ${failed.timedOut ? 'timed out' : `exited ${failed.exitCode}`}` : 'the integration gate failed';
  const on = mergedBefore ? ` on top of ${counted(mergedBefore, 'merge')} that pass` : '';
  session.transition(taskId, 'INTEGRATION_GATE_FAILED', `the integration gate fails once it is merged${on}: ${why}`);
  const limit = session.state.config.maxGateFixAttempts;
  if (session.task(taskId).gateFailures >= limit) {
    session.transition(taskId, 'EXCEEDED_LIMIT', `gate still failing after ${counted(limit, 'attempt')}, the last on integration: ${why}`);
  }
}
