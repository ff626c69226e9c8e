import type { RunEndStatus } from '../domain/events';
import { isShutdown, type DriveOutcome } from './engineShutdown';
import { isSatisfied } from '../domain/taskStates';
import { remainingChainLengths } from '../plan/planGraph';
import { findBlockedTasks, findRevivableTasks, pickTasksToStart } from '../schedule/scheduler';
import { integrate } from './integrator';
import type { RunContext } from './runContext';
import { runTask } from './taskLoop';

/**
 * Drives a run from wherever its state is to an end: starts ready tasks (bounded, longest
 * chain first), skips what can no longer start, then integrates. Returns how the run ended.
 */
export async function driveRun(ctx: RunContext): Promise<DriveOutcome> {
  const { session } = ctx;
  const chainLength = remainingChainLengths(session.state.plan);
  const running = new Map<string, Promise<void>>();

  for (;;) {
    settleUnreachableTasks(ctx);
    const canStart = !ctx.isPaused() && !ctx.signal.aborted;
    const toStart = canStart ? pickTasksToStart(schedulable(ctx), session.state.config.maxParallel, chainLength) : [];
    for (const taskId of toStart) {
      running.set(taskId, runTask(ctx, taskId).finally(() => running.delete(taskId)));
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }

  if (isShutdown(ctx.signal)) return interrupted(ctx);
  if (ctx.signal.aborted) return finish(ctx, 'cancelled', cancelRemaining(ctx));
  if (ctx.isPaused()) {
    // A quota hit already recorded run_paused; nothing is lost, `resume` continues.
    return 'paused';
  }
  const { clean, gatePassed } = await integrate(ctx);
  if (isShutdown(ctx.signal)) return interrupted(ctx);
  if (ctx.signal.aborted) return finish(ctx, 'cancelled', 'cancelled during integration');
  const tasks = Object.values(session.state.tasks);
  const green = tasks.filter((t) => isSatisfied(t.state)).length;
  // A skipped task was the human's call (or follows from one): it leaves nothing to decide.
  const allDecided = tasks.every((t) => isSatisfied(t.state) || t.state === 'SKIPPED');
  const summary = [
    `${green}/${tasks.length} task(s) green${green + skippedCount(tasks) === tasks.length && green < tasks.length ? `, ${skippedCount(tasks)} skipped` : ''}`,
    `${session.state.integration.merged.length} merged into ${session.state.integration.branch}`,
    clean ? 'no conflicts' : `${session.state.integration.conflicts.length} conflict(s)`,
    `integration gate ${gatePassed ? 'passed' : 'failed'}`,
  ].join(', ');
  const completed = allDecided && clean && gatePassed;
  if (completed) await ctx.worktrees.removeIntegrationWorktree();
  return finish(ctx, completed ? 'completed' : 'needs_human', summary);
}

const skippedCount = (tasks: Array<{ state: string }>) => tasks.filter((t) => t.state === 'SKIPPED').length;

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
    session.transition(taskId, 'DEPENDENCY_FAILED', `dependency "${blockedBy}" ended ${dep.state}: ${dep.lastReason}`);
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
  return `cancelled by the user (${cancelled} task(s) had not started)`;
}

/** The run stays unfinished (no run_finished): the next process resumes it where it stopped. */
function interrupted(ctx: RunContext): DriveOutcome {
  const reason = (ctx.signal.reason as Error).message;
  ctx.session.emit({ type: 'warning', message: `the run was interrupted (${reason}); resume it to continue` });
  return 'interrupted';
}

function finish(ctx: RunContext, status: RunEndStatus, summary: string): RunEndStatus {
  ctx.session.emit({ type: 'run_finished', status, summary });
  return status;
}
