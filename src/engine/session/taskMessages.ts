import type { LiveMessages } from '../agents/runner';
import type { TaskMessage } from '../domain/runState';
import { undeliveredMessages } from '../domain/taskMessages';
import type { RunContext } from './runContext';

type MessageContext = Pick<RunContext, 'session' | 'control'>;

/** The messages waiting for the task's actor, recorded as going into the prompt of `attempt` (its next turn). */
export function takeWaitingMessages(ctx: MessageContext, taskId: string, attempt: number): TaskMessage[] {
  const waiting = undeliveredMessages(ctx.session.task(taskId));
  for (const message of waiting) ctx.session.emit({ type: 'task_message_delivered', taskId, messageId: message.id, how: 'next_turn', attempt });
  return waiting;
}

/**
 * The messages an actor call of attempt `attempt` can take mid-turn: those still waiting, then
 * each one recorded while it works. One the agent took is recorded as delivered live; the rest
 * stay waiting for the task's next actor turn.
 */
export function liveMessages(ctx: MessageContext, taskId: string, attempt: number): LiveMessages {
  return {
    subscribe(listener) {
      for (const message of undeliveredMessages(ctx.session.task(taskId))) listener(message);
      return ctx.control.onMessage(taskId, listener);
    },
    delivered({ id }) {
      const message = ctx.session.task(taskId).messages.find((m) => m.id === id);
      if (message && !message.delivered) ctx.session.emit({ type: 'task_message_delivered', taskId, messageId: id, how: 'live', attempt });
    },
  };
}
