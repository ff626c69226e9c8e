import type { SendToTaskParams, SendToTaskResult } from '../../protocol/engineProtocol';
import { sendToTask } from '../usecases/sendToTask';
import { personName } from '../workspace/personName';
import type { WorkspaceHosts } from './workspaceHosts';

/** The run view's message box: src/engine/usecases/sendToTask.ts, whether this server or another process drives the run. */
export async function sendMessage(hosts: WorkspaceHosts, params: SendToTaskParams): Promise<SendToTaskResult> {
  const host = await hosts.forFolder(params.folder);
  const from = await personName(host.root);
  const sent = await host.withStore((store) => sendToTask(store, { runId: params.runId, taskId: params.taskId, text: params.text, from }));
  return { messageId: sent.messageId, outcome: sent.outcome };
}
