import * as vscode from 'vscode';
import { StopTaskRequest, TakeOverRequest } from '../../protocol/engineProtocol';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { pickTaskFor } from '../targets/pickTarget';

/** Stop This Task: its agent, gate or critic stops; the rest of the run goes on, and the task waits for you. */
export async function stopTask(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickTaskFor(services.controller, arg, 'stop', 'Taskloom: no task is at work.');
  if (!ref) return;
  try {
    const stopped = await services.engine.request(StopTaskRequest.type, ref);
    if (stopped.state === undefined) {
      void vscode.window.showInformationMessage(`Taskloom: asked ${stopped.askedDriver ?? 'the process that drives the run'} to stop ${ref.taskId}; it has not stopped yet.`);
    } else if (stopped.state !== 'NEEDS_HUMAN') {
      void vscode.window.showInformationMessage(`Taskloom: ${ref.taskId} is ${TASK_STATE_WORDS[stopped.state]} now.`);
    }
  } catch (error) {
    showError('stop the task', error);
  }
}

/**
 * Take Over: the task is stopped if it runs and waits for you ("taken over by you"); a terminal
 * named after it opens in its worktree and runs `taskloom take-over` there, which opens the agent's
 * own session resumed (or a shell), confined by the same code as in a terminal of your own. Hand
 * Back gives it to the run again.
 */
export async function takeOverTask(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickTaskFor(services.controller, arg, 'takeOver', 'Taskloom: no task is at work or waits for you.');
  if (!ref) return;
  let taken;
  try {
    taken = await services.engine.request(TakeOverRequest.type, ref);
  } catch (error) {
    showError('take the task over', error);
    return;
  }
  const cli = vscode.Uri.joinPath(services.context.extensionUri, 'dist', 'cli.js').fsPath;
  const terminal = vscode.window.createTerminal({
    name: `Taskloom: ${ref.taskId}`,
    cwd: taken.worktree,
    // The extension host's own runtime runs the CLI (Electron's, as Node, in desktop VS Code).
    shellPath: process.execPath,
    shellArgs: [cli, 'take-over', ref.taskId, '--run', ref.runId, '--cwd', ref.folder],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  });
  terminal.show();
}
