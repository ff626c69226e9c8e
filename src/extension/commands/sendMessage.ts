import * as vscode from 'vscode';
import { takesMessages } from '../../engine/domain/taskMessages';
import { sendOutcomeWords } from '../../engine/text/messageWords';
import { SendToTaskRequest } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { pickTask } from '../targets/pickTarget';

/**
 * Send a Message to This Task…: words for a running task's actor (src/engine/usecases/sendToTask.ts),
 * from the Runs tree (asked for in an input box) or the run view's message box (`text` given).
 */
export async function sendMessageToTask(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickTask(services.controller, arg, (task) => takesMessages(task.state), 'Taskloom: no task is at work, or waiting for its turn, to send a message to.');
  if (!ref) return;
  const given = (arg as { text?: unknown } | undefined)?.text;
  const text =
    typeof given === 'string'
      ? given
      : await vscode.window.showInputBox({
          title: `Message for ${ref.taskId}`,
          prompt: 'What should its agent hear? Claude Code hears it in the turn it is working on; other agents in their next turn.',
          ignoreFocusOut: true,
        });
  if (!text?.trim()) return;
  try {
    const sent = await services.engine.request(SendToTaskRequest.type, { folder: ref.folder, runId: ref.runId, taskId: ref.taskId, text });
    void vscode.window.showInformationMessage(sendOutcomeWords(ref.taskId, ref.runId, sent.outcome));
  } catch (error) {
    showError('send the message', error);
  }
}
