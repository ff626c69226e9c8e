import { undeliveredMessages } from '../domain/taskMessages';
import type { RunContext } from '../session/runContext';

/**
 * A message that came after the actor's last turn (or during a turn that could not take it) is
 * not dropped when the critic approves: the task goes back to its actor, whose next prompt quotes
 * it. A person's word, not the critic's: it counts as no review cycle. True when it did.
 */
export function sendsBackForMessages(ctx: Pick<RunContext, 'session'>, taskId: string): boolean {
  const waiting = undeliveredMessages(ctx.session.task(taskId));
  if (waiting.length === 0) return false;
  const reason = `a message from ${[...new Set(waiting.map((m) => m.from))].join(', ')}`;
  ctx.session.transition(taskId, 'MESSAGE_SENT_BACK', reason);
  ctx.session.transition(taskId, 'RETRY_BUILD', `retrying with ${reason}`);
  return true;
}
