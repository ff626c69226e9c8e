import { decide, taskOf } from './decisionLedger';
import type { ProjectionHandlers } from './projectionHandlers';

/**
 * The projection of a person steering a running task: the messages each task's actor is to hear
 * (and whether it did), stop requests, and the inbox requests refused. Each request's id is kept,
 * so that the drive records a request once even if it finds it again after a crash.
 */
export const MESSAGE_HANDLERS = {
  task_message(state, e) {
    state.inboxRequests.push(e.messageId);
    taskOf(state, e.taskId).messages.push({ id: e.messageId, seq: e.seq, at: e.at, from: e.from, text: e.text });
    decide(state, e, 'human', { type: 'task_message', from: e.from, text: e.text }, e.taskId);
  },
  task_message_delivered(state, e) {
    const message = taskOf(state, e.taskId).messages.find((m) => m.id === e.messageId);
    if (!message || message.delivered) return;
    message.delivered = { how: e.how, attempt: e.attempt, at: e.at };
    decide(state, e, 'human', { type: 'task_message_delivered', how: e.how, attempt: e.attempt, from: message.from }, e.taskId);
  },
  task_stop_requested(state, e) {
    state.inboxRequests.push(e.requestId);
    decide(state, e, 'human', { type: 'task_stop_requested', by: e.by }, e.taskId);
  },
  run_request_refused(state, e) {
    state.inboxRequests.push(e.requestId);
    // An unknown task has no ledger of its own: the refusal is the run's.
    const taskId = state.tasks[e.taskId] ? e.taskId : undefined;
    decide(state, e, 'human', { type: 'run_request_refused', kind: e.kind, taskId: e.taskId, from: e.from, why: e.why, ...(e.state ? { state: e.state } : {}) }, taskId);
  },
} satisfies Partial<ProjectionHandlers>;
