import type { RunCounts, RunEndStatus } from '../domain/events';
import { countTasks } from '../domain/taskCounts';
import { errorText } from '../domain/taskloomError';
import { isDone, isQueued, isWaitingForHuman } from '../domain/taskStates';
import { remainingChainLengths } from '../plan/planGraph';
import { readyToMerge, runMergeBatch } from '../queue/mergeQueue';
import { OverlapIndex, type OverlapWait } from '../schedule/overlap';
import { predictRunOverlaps } from './runOverlaps';
import { findBlockedTasks, findRevivableTasks, pickTasksToStart } from '../schedule/scheduler';
import { interruptedWarning, isShutdown, type DriveOutcome } from './engineShutdown';
import { integrationGate } from '../session/integrationGate';
import { gateTheBase } from '../session/baseline';
import type { RunContext } from '../session/runContext';
import { runTask } from './taskLoop';
import { counted } from '../text/counted';
import { TASK_STATE_WORDS } from '../domain/stateWords';

/**
 * Drives a run from wherever its state is to an end. Two kinds of work go on side by side:
 * tasks (at most maxParallel in flight, longest chain first, overlapping ones one after the
 * other), and the merge queue, which merges each approved task into the integration branch as
 * soon as it is ready and gates the result. Work the queue sends back (a conflict, a failed
 * integration gate) goes to an agent again. The run completes when every task is merged or
 * deliberately skipped and the integration gate passes on the result.
 */
export async function driveRun(ctx: RunContext): Promise<DriveOutcome> {
  // A stop can interrupt the preparation's git (see stoppedMidStep): the run then ends as the stop says, with no task started.
  const prepared = await prepareIntegration(ctx).then(
    () => true,
    (error: unknown) => {
      if (ctx.signal.aborted) return false;
      throw error;
    },
  );
  if (prepared) {
    // Beside the first actors; a gate that needs it waits for it. Its failure is only a warning (session/baseline.ts).
    ctx.baseline = gateTheBase(ctx).catch((error: unknown) => {
      if (!ctx.signal.aborted) ctx.session.emit({ type: 'warning', message: `the gate could not run on the base: ${(error as Error).message}` });
      return undefined;
    });
    await driveTasks(ctx);
    await ctx.baseline;
  }
  if (isShutdown(ctx.signal)) return interrupted(ctx);
  if (ctx.signal.aborted) return finish(ctx, 'cancelled', cancelRemaining(ctx));
  // A quota hit already recorded run_paused; nothing is lost, `resume` continues.
  if (ctx.isPaused()) return 'paused';
  return finishRun(ctx);
}

/** Starts tasks and merge batches until nothing is in flight and nothing more can start. */
async function driveTasks(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  const chainLength = remainingChainLengths(session.state.plan);
  const overlaps = new OverlapIndex(session.state.plan.tasks, session.state.integration.overlaps);
  const serialize = (session.state.config.overlap ?? 'off') === 'serialize';
  const running = new Map<string, Promise<void>>();
  /** What each waiting task waited for, so its start says why it starts from the merged work. */
  const waitedFor = new Map<string, OverlapWait[]>();
  let queue: Promise<void> | undefined;

  for (;;) {
    const stopped = ctx.signal.aborted;
    // Once stopped, a task left unfinished is not a failed dependency: what waits on it stays pending
    // (cancelled with the run, or taken up by the resume), never skipped.
    if (!stopped) settleUnreachableTasks(ctx);
    if (!stopped && !ctx.isPaused()) {
      const tasks = Object.values(session.state.tasks);
      const waits = serialize ? overlaps.waits(tasks) : new Map<string, OverlapWait[]>();
      for (const [id, wait] of waits) waitedFor.set(id, wait);
      // A task sent back by the queue keeps its state until it has taken in integration: it holds its slot meanwhile.
      const view = schedulable(ctx).map((t) => (running.has(t.id) ? { ...t, state: 'BUILDING' as const } : t));
      // An approved task keeps its worktree until it is merged (then the next task recycles it), so
      // it holds a slot too: the run never has more than maxParallel task checkouts on disk.
      const awaitingMerge = view.filter((t) => isQueued(t.state)).length;
      const slots = session.state.config.maxParallel - awaitingMerge;
      const toStart = slots >= 1 ? pickTasksToStart(view, slots, chainLength, new Set(waits.keys())) : [];
      for (const taskId of toStart) {
        running.set(taskId, runTask(ctx, taskId, waitedFor.get(taskId)).finally(() => running.delete(taskId)));
      }
    }
    // The queue needs no agent: it goes on while a quota pause holds the tasks back.
    if (!stopped && !queue && readyToMerge(ctx).length > 0) {
      queue = runMergeBatch(ctx)
        .catch((error: unknown) => failQueuedTasks(ctx, error))
        .finally(() => (queue = undefined));
    }
    if (running.size === 0 && !queue) break;
    await Promise.race([...running.values(), ...(queue ? [queue] : [])]);
  }
}

/** The integration branch and worktree exist before any task starts: tasks start from the branch. */
async function prepareIntegration(ctx: RunContext): Promise<void> {
  const { session, integration } = ctx;
  const { state } = session;
  const prepared = await integration.prepare(state.baseCommit);
  if (state.integration.branch !== prepared.branch || state.integration.path !== prepared.path) {
    session.emit({ type: 'integration_prepared', branch: prepared.branch, path: prepared.path });
  }
  const mode = state.config.overlap ?? 'off';
  if (mode !== 'off' && !state.integration.overlapsPredicted) {
    const pairs = await predictRunOverlaps(state, ctx.worktrees.repo);
    session.emit({ type: 'overlaps_predicted', mode, pairs });
  }
}

/** Every task has left the loop: the run completes only when all are merged or skipped and the gate passes on what was merged. */
async function finishRun(ctx: RunContext): Promise<RunEndStatus> {
  const { session, integration } = ctx;
  const tasks = Object.values(session.state.tasks);
  const allDone = tasks.every((t) => isDone(t.state));
  let gatePassed = false;
  if (allDone) {
    const head = await integration.verifiedHead();
    const last = session.state.integration.lastGate;
    // The last batch gated the head already; with nothing merged there is nothing of the run's to gate.
    // A 0.1 run gated its merges without saying on which commit: its head is gated once more.
    gatePassed = (last?.passed === true && last.commit === head) || head === session.state.baseCommit;
    if (!gatePassed) gatePassed = await gateHead(ctx, head);
  }
  const { total, merged, skipped } = countTasks(session.state);
  const needsYou = tasks.filter((t) => isWaitingForHuman(t.state)).length;
  const counts: RunCounts = { total, merged, skipped, needsYou, integrationGatePassed: gatePassed };
  const completed = allDone && gatePassed;
  if (completed) {
    await integration.remove();
    await ctx.worktrees.cleanup({ greenTaskIds: [] });
  }
  return finish(ctx, completed ? 'completed' : 'needs_human', describeEnd(counts, session.state.integration.branch ?? 'integration', allDone), counts);
}

async function gateHead(ctx: RunContext, head: string): Promise<boolean> {
  await ctx.integration.checkout(head);
  const gate = await integrationGate(ctx, head, { attempt: ctx.session.state.integration.batches, taskIds: [] });
  return gate.passed;
}

/** Never says the integration gate passed for a run with unmerged work: that would claim more than happened. */
function describeEnd(c: RunCounts, branch: string, allDone: boolean): string {
  const parts = [`${c.merged}/${c.total} merged into ${branch}`];
  if (c.skipped) parts.push(`${c.skipped} skipped`);
  if (c.needsYou) parts.push(`${c.needsYou} need${c.needsYou === 1 ? 's' : ''} you`);
  if (allDone) parts.push(c.integrationGatePassed ? 'integration gate passed' : 'the integration gate fails on the merged result');
  return parts.join(', ');
}

/**
 * A failure of the queue itself (not of a merge or a gate) stops the tasks it held, for a person to
 * look at. While the run is being stopped the failure is the stop's (see stoppedMidStep): what was
 * being merged goes back to the queue with its approved work, as when a stop ends the batch's gate.
 */
function failQueuedTasks(ctx: RunContext, error: unknown): void {
  if (ctx.signal.aborted) {
    for (const task of Object.values(ctx.session.state.tasks)) {
      if (task.state === 'MERGING') ctx.session.transition(task.id, 'REQUEUED', 'the run stopped while the batch was being merged');
    }
    return;
  }
  const reason = `the merge queue failed: ${errorText(error as Error)}`;
  for (const task of Object.values(ctx.session.state.tasks)) {
    if (task.state === 'MERGING' || task.state === 'GREEN' || task.state === 'UNVERIFIED_BY_CRITIC') {
      ctx.session.transition(task.id, 'ENGINE_ERROR', reason);
    }
  }
}

function schedulable(ctx: RunContext) {
  return ctx.session.state.taskOrder.map((id) => {
    const t = ctx.session.task(id);
    return { id, dependsOn: t.dependsOn, state: t.state };
  });
}

/** Skips tasks whose dependencies failed, and brings skipped ones back when those were retried. */
function settleUnreachableTasks(ctx: RunContext): void {
  const { session } = ctx;
  const skippedByDependency = new Set(session.state.taskOrder.filter((id) => session.task(id).skippedByDependency));
  for (const taskId of findRevivableTasks(schedulable(ctx), skippedByDependency)) {
    session.transition(taskId, 'DEPENDENCY_RETRIED', 'its dependencies can go green again');
  }
  for (const { taskId, blockedBy } of findBlockedTasks(schedulable(ctx))) {
    const dep = session.task(blockedBy);
    session.transition(taskId, 'DEPENDENCY_FAILED', `dependency "${blockedBy}" stopped at "${TASK_STATE_WORDS[dep.state]}": ${dep.lastReason}`);
  }
}

function cancelRemaining(ctx: RunContext): string {
  const { session } = ctx;
  let cancelled = 0;
  for (const taskId of session.state.taskOrder) {
    if (session.task(taskId).state !== 'PENDING') continue;
    session.transition(taskId, 'CANCELLED', 'the run was cancelled before this task started');
    cancelled += 1;
  }
  return `cancelled by the user (${counted(cancelled, 'task')} had not started)`;
}

/** The run stays unfinished (no run_finished): the next process resumes it where it stopped. */
function interrupted(ctx: RunContext): DriveOutcome {
  ctx.session.emit(interruptedWarning((ctx.signal.reason as Error).message));
  return 'interrupted';
}

function finish(ctx: RunContext, status: RunEndStatus, summary: string, counts?: RunCounts): RunEndStatus {
  ctx.session.emit({ type: 'run_finished', status, summary, ...(counts ? { counts } : {}) });
  return status;
}
