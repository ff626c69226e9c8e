import { takesMessages } from '../domain/taskMessages';
import { isInFlight, isSettled } from '../domain/taskStates';
import { takeOverInDrive } from './personAtTask';
import { RunInbox, type RunRequest } from '../store/runInbox';
import type { RunContext } from '../session/runContext';
import { unreadableRequestWords } from '../text/messageWords';

/**
 * For as long as a run is driven: each request a person leaves in its inbox (from any process) is
 * recorded in the log, then acted on — a message goes to the task's actor (session/taskMessages.ts),
 * a stop to the drive's RunControl, a take over stops the task and records it (personAtTask.ts). A request for no task, or for one that cannot take it, is
 * recorded as refused, never thrown. Returns the function that stops listening.
 */
export function listenToInbox(ctx: Pick<RunContext, 'session' | 'control'>, runDir: string): () => void {
  const inbox = new RunInbox(runDir);
  return inbox.listen(
    (request) => takeRequest(ctx, request),
    (bad) => ctx.session.emit({ type: 'warning', message: unreadableRequestWords(bad.problem) }),
  );
}

function takeRequest(ctx: Pick<RunContext, 'session' | 'control'>, request: RunRequest): Promise<void> | void {
  const { session } = ctx;
  // Recorded before a crash that left its file behind: acted on then, not again.
  if (session.state.inboxRequests.includes(request.id)) return;
  const task = session.state.tasks[request.taskId];
  const refuse = (why: 'unknown_task' | 'task_state') =>
    session.emit({ type: 'run_request_refused', requestId: request.id, kind: request.kind, taskId: request.taskId, from: request.from, why, ...(task ? { state: task.state } : {}) });
  if (!task) return void refuse('unknown_task');
  if (request.kind === 'message') {
    if (!takesMessages(task.state)) return void refuse('task_state');
    session.emit({ type: 'task_message', taskId: task.id, messageId: request.id, from: request.from, text: request.text });
    ctx.control.messageArrived(task.id, session.task(task.id).messages.at(-1)!);
    return;
  }
  if (request.kind === 'take_over') {
    if (!isInFlight(task.state) && task.state !== 'NEEDS_HUMAN') return void refuse('task_state');
    if (isInFlight(task.state)) session.emit({ type: 'task_stop_requested', taskId: task.id, requestId: request.id, by: request.from });
    // Taken in turn: the requests after it wait until the task's agent is gone and the take over is recorded.
    return takeOverInDrive(ctx, task.id, request.from).then(() => undefined);
  }
  if (isSettled(task.state)) return void refuse('task_state');
  session.emit({ type: 'task_stop_requested', taskId: task.id, requestId: request.id, by: request.from });
  ctx.control.stopTask(task.id, request.from);
}
