import * as vscode from 'vscode';
import { TaskDecisionRequest } from '../../protocol/engineProtocol';
import { showDriveProgress } from '../driveProgress';
import { confirmUnknownRun, showError } from '../engine/userErrors';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';
import { pickTask, type TaskRef } from './runRef';
import type { ConfirmOptions, TrustOptions } from './runCommands';

const DECIDABLE = new Set(['NEEDS_HUMAN', 'UNVERIFIED_BY_CRITIC']);

export interface DecisionOptions extends ConfirmOptions, TrustOptions {
  /** For retry: what the actor should do differently. Asked for when absent. */
  note?: string;
}

export async function decideTask(services: Services, action: 'retry' | 'accept' | 'skip', arg?: unknown, options: DecisionOptions = {}): Promise<void> {
  const accept = action === 'retry' ? (s: string) => DECIDABLE.has(s) || s === 'SKIPPED' : (s: string) => DECIDABLE.has(s);
  const ref = await pickTask(services.controller, arg, accept, `Taskloom: no task is waiting for you to ${action} it.`);
  if (!ref) return;
  const task = (await services.controller.state(ref.folder, ref.runId))?.tasks[ref.taskId];
  if (!task) return;
  let note = options.note;
  if (action === 'retry' && note === undefined && !options.confirmed) {
    note = await vscode.window.showInputBox({
      title: `Retry ${ref.taskId}`,
      prompt: 'A note for the agent (optional): what should it do differently?',
      placeHolder: plainText(task.lastReason, 120),
      ignoreFocusOut: true,
    });
    if (note === undefined) return;
  }
  if (action !== 'retry' && !options.confirmed) {
    const detail =
      action === 'accept'
        ? 'Its work is committed as it is and merged with the green tasks, without passing review.'
        : 'It is left out; tasks that depend on it are skipped too.';
    const label = action === 'accept' ? 'Accept' : 'Skip';
    const answer = await vscode.window.showWarningMessage(`${label} task "${ref.taskId}: ${plainText(task.title, 80)}"?`, { modal: true, detail }, label);
    if (answer !== label) return;
  }
  await sendDecision(services, ref, action, note?.trim() || undefined, options.trustRun === true);
}

async function sendDecision(services: Services, ref: TaskRef, action: 'retry' | 'accept' | 'skip', note: string | undefined, trustRun: boolean): Promise<void> {
  const params = { ...ref, action, ...(note ? { note } : {}) };
  try {
    try {
      await services.engine.request(TaskDecisionRequest.type, { ...params, ...(trustRun ? { trustRun: true } : {}) });
    } catch (error) {
      // The run is driven afterwards: one not started on this machine needs the user's say-so first.
      const confirmed = await confirmUnknownRun(error);
      if (confirmed === undefined) throw error;
      if (!confirmed) return;
      await services.engine.request(TaskDecisionRequest.type, { ...params, trustRun: true });
    }
  } catch (error) {
    showError(`${action} the task`, error);
    return;
  }
  services.controller.model.setActive(ref.folder, ref.runId, true);
  showDriveProgress(services, ref);
}

export async function openTaskWorktree(services: Services, arg?: unknown, where?: 'newWindow' | 'workspace'): Promise<void> {
  const ref = await pickTask(services.controller, arg, () => true, 'Taskloom: no task has a worktree.');
  if (!ref) return;
  const task = (await services.controller.state(ref.folder, ref.runId))?.tasks[ref.taskId];
  const path = task?.worktreePath;
  if (!path) {
    void vscode.window.showInformationMessage(`Task "${ref.taskId}" has no worktree (it has not started, or its worktree was removed after merging).`);
    return;
  }
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(path));
  } catch {
    void vscode.window.showInformationMessage(`The worktree of "${ref.taskId}" is gone (removed after merging). Use Show Task Diff to see its work.`);
    return;
  }
  const choice =
    where ??
    (
      await vscode.window.showQuickPick(
        [
          { label: '$(empty-window) Open in New Window', where: 'newWindow' as const },
          { label: '$(root-folder) Add to Workspace', where: 'workspace' as const },
        ],
        { placeHolder: `Open the worktree of ${ref.taskId}` },
      )
    )?.where;
  if (choice === 'newWindow') await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(path), { forceNewWindow: true });
  if (choice === 'workspace') {
    const count = vscode.workspace.workspaceFolders?.length ?? 0;
    vscode.workspace.updateWorkspaceFolders(count, 0, { uri: vscode.Uri.file(path), name: `taskloom: ${ref.taskId}` });
  }
}
