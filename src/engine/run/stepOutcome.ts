import type { RunnerResult } from '../agents/runner';
import { budgetStop } from '../domain/budget';
import type { ActorFeedback } from '../loop/prompts';
import { describeFailure } from '../session/agentCall';
import { isShutdown } from './engineShutdown';
import type { RunContext } from '../session/runContext';

/** How a step of a task's loop ended: go on (with what the actor must fix next), or the task left the loop. */
export type StepOutcome = { next: 'continue'; feedback?: ActorFeedback } | { next: 'stop' };
export const STOP: StepOutcome = { next: 'stop' };

/** Ends the task before an agent call that a budget does not allow; true when it did. */
export function stoppedByBudget(ctx: RunContext, taskId: string): boolean {
  const reason = budgetStop(ctx.session.state, taskId);
  if (reason) ctx.session.transition(taskId, 'EXCEEDED_LIMIT', `${reason}; no further agent call was made`);
  return reason !== undefined;
}

/** Moves the task to the state a failed call calls for; true when the call succeeded. */
export function handleAgentFailure(ctx: RunContext, taskId: string, role: string, result: RunnerResult): boolean {
  const { session } = ctx;
  const reason = describeFailure(role, result, session.state.config.stuckThresholdSeconds);
  switch (result.status) {
    case 'ok':
      return true;
    case 'cancelled':
      cancel(ctx, taskId, reason);
      return false;
    case 'quota':
      session.transition(taskId, 'QUOTA_EXHAUSTED', reason);
      ctx.pause(`${role} of "${taskId}" hit a usage quota or rate limit`);
      return false;
    case 'idle_timeout':
      session.transition(taskId, 'STUCK_ABORTED', reason);
      return false;
    default:
      session.transition(taskId, 'AGENT_FAILED', reason);
      return false;
  }
}

/**
 * Ends the task's loop after its step was stopped. A person who stopped this task alone leaves it
 * waiting for them (HUMAN_STOPPED), the rest of the run going on. A person's Cancel of the run
 * records CANCELLED. A shutdown (the window or the engine going away) records nothing: the task
 * stays in the step it was in, as after a crash, so every view reads it as interrupted and its
 * dependents stay pending; the resume starts that step again (TaskloomEngine.prepareResume).
 */
export function cancel(ctx: RunContext, taskId: string, reason: string): StepOutcome {
  if (stoppedByPerson(ctx, taskId)) return STOP;
  if (!isShutdown(ctx.signal)) ctx.session.transition(taskId, 'CANCELLED', reason);
  return STOP;
}

/** The task's own stop ended its step (RunControl.stopTask): it waits for the person who stopped it. True when it was theirs. */
function stoppedByPerson(ctx: RunContext, taskId: string): boolean {
  const by = ctx.control.stoppedBy(taskId);
  if (by === undefined) return false;
  ctx.session.transitionIfLegal(taskId, 'HUMAN_STOPPED', stoppedByReason(by));
  return true;
}

/** The reason a task stopped by a person reads. */
export const stoppedByReason = (by: string): string => `stopped by ${by}`;

/**
 * A step that failed while the run was being stopped ends as the stop says, not as a failure of
 * the task: the stop interrupts git too (a Ctrl-C in the terminal reaches every process in the
 * CLI's group, so the git making a task's worktree dies mid-command). A task in flight records
 * CANCELLED, as between steps; one the stop found waiting (sent back by the merge queue) stays as
 * it was; a shutdown records nothing. Resume takes each up again. True when the run was being stopped.
 */
export function stoppedMidStep(ctx: RunContext, taskId: string): boolean {
  if (!ctx.signal.aborted) return false;
  if (stoppedByPerson(ctx, taskId)) return true;
  if (!isShutdown(ctx.signal)) ctx.session.transitionIfLegal(taskId, 'CANCELLED', 'the run was cancelled');
  return true;
}
