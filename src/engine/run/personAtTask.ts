import { existsSync } from 'node:fs';
import { assertHumanAction } from '../domain/humanActions';
import { isInFlight } from '../domain/taskStates';
import type { RunContext } from '../session/runContext';
import type { RunSession } from '../session/runSession';
import { taskCommits } from '../session/taskCommits';
import type { WorktreeManager } from '../workspace/worktreeManager';
import { stoppedByReason } from './stepOutcome';

/**
 * A person stops a task of a run nobody drives (its process died mid-step, or the run stopped
 * with the task in flight): it waits for them (HUMAN_STOPPED), so a resume does not start it
 * again. What the stopped agent left in the worktree is kept as work in progress, as when a person
 * stops a driven task; a resolution's worktree is left mid-merge, as its resolver left it.
 */
export async function stopUndrivenTask(parts: { session: RunSession; worktrees: WorktreeManager }, taskId: string, by: string): Promise<void> {
  const { session, worktrees } = parts;
  const task = session.task(taskId);
  if (!isInFlight(task.state)) throw new Error(`task "${taskId}" is not in flight (${task.state})`);
  if (task.worktreePath && existsSync(task.worktreePath) && !task.resolution) {
    const planTask = session.state.plan.tasks.find((t) => t.id === taskId)!;
    try {
      const committed = await worktrees.commitAll(task.worktreePath, taskCommits(session, planTask).workInProgress());
      if (committed) session.emit({ type: 'work_committed', taskId, attempt: task.attempt, ...committed });
    } catch (error) {
      session.emit({ type: 'warning', taskId, message: `what the stopped agent left could not be committed: ${(error as Error).message}` });
    }
  }
  session.transition(taskId, 'HUMAN_STOPPED', stoppedByReason(by));
}

/** The person works on the task themselves now (it waits for them already); false when it does not wait for a person, or is theirs already. */
export function recordTakeOver(session: RunSession, taskId: string, by: string): boolean {
  const task = session.task(taskId);
  if (task.state !== 'NEEDS_HUMAN' || task.withPerson === 'taken_over') return false;
  session.transition(taskId, 'HUMAN_TOOK_OVER', `taken over by ${by}`);
  return true;
}

/**
 * In the drive of the run: stops the task's work under way, if any, waits for its loop to end,
 * and records that the person took it over. For the process that drives the run, when another asks
 * it (a `take_over` request in the run's inbox). False when the task does not wait for a person then.
 */
export async function takeOverInDrive(ctx: Pick<RunContext, 'session' | 'control'>, taskId: string, by: string): Promise<boolean> {
  if (ctx.control.stopTask(taskId, by)) await ctx.control.settled(taskId);
  return recordTakeOver(ctx.session, taskId, by);
}

/**
 * The person hands the task back (`continue`): the next drive commits what is in its worktree,
 * gates it and has the critic review it, as an actor's attempt (taskStart.ts), with fresh limits.
 */
export function handBack(session: RunSession, taskId: string): void {
  assertHumanAction(session.task(taskId), 'continue');
  session.emit({ type: 'human_decision', taskId, action: 'continue' });
  session.transition(taskId, 'HANDED_BACK', 'handed back: the gate and the critic judge what is in its worktree');
}
