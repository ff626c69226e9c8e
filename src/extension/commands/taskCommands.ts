import * as vscode from 'vscode';
import { resumedByDecision } from '../../engine/domain/humanActions';
import { ContinueTaskRequest, ResolveByHandRequest, TaskDecisionRequest } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { cancelledRunResumes } from '../resumeMessage';
import { plainText } from '../tree/presentation';
import { openMergeEditor } from '../documents/mergeEditor';
import { pickTaskFor } from '../targets/pickTarget';
import type { TaskRef } from '../targets/runRef';
import { requestTrustingRun } from '../connection/trustingRun';

export interface DecisionOptions {
  /** For retry: what the actor should do differently. Asked for when absent. */
  note?: string;
}

export async function decideTask(services: Services, action: 'retry' | 'accept' | 'skip', arg?: unknown, options: DecisionOptions = {}): Promise<void> {
  const ref = await pickTaskFor(services.controller, arg, action, `Taskloom: no task is waiting for you to ${action} it.`);
  if (!ref) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  const task = state?.tasks[ref.taskId];
  if (!state || !task) return;
  const resumed = resumedByDecision(state, ref.taskId);
  const resumes = resumed ? `${cancelledRunResumes(action, ref.taskId, resumed.alsoTakenUp)} ` : '';
  let note = options.note;
  if (action === 'retry' && note === undefined) {
    note = await vscode.window.showInputBox({
      title: `Retry ${ref.taskId}`,
      prompt: resumes + (task.queueProblem ? 'A note for the agent resolving it (optional): how should the two sides be combined?' : 'A note for the agent (optional): what should it do differently?'),
      placeHolder: plainText(task.lastReason, 120),
      ignoreFocusOut: true,
    });
    if (note === undefined) return;
  }
  if (action !== 'retry') {
    const detail =
      action === 'accept'
        ? 'Its work is committed as it is and goes to the merge queue, without passing review.'
        : 'It is left out of the run; tasks that depend on it are skipped too. The rest of the run goes on.';
    const label = action === 'accept' ? 'Accept' : 'Skip';
    if (!(await services.confirm(`${label} task "${ref.taskId}: ${plainText(task.title, 80)}"?`, `${detail}${resumes && `\n\n${resumes.trim()}`}`, label))) return;
  }
  await sendDecision(services, ref, { action, ...(note?.trim() ? { note: note.trim() } : {}) });
}

/**
 * Resolve by Hand: the engine merges integration into the task's worktree; the first conflicted
 * file opens in VS Code's merge editor (the task's work, the integration branch, their base), and
 * Continue checks the result with the gate and merges it.
 */
export async function resolveTask(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickTaskFor(services.controller, arg, 'resolve', 'Taskloom: no task has a conflict or integration failure to resolve.');
  if (!ref) return;
  let resolution;
  try {
    resolution = await services.engine.request(ResolveByHandRequest.type, ref);
  } catch (error) {
    showError('resolve the task by hand', error);
    return;
  }
  const [first] = resolution.conflicts;
  if (first) await openMergeEditor(ref.folder, resolution, first);
  else await vscode.window.showTextDocument(vscode.Uri.file(resolution.path), { preview: false }).then(undefined, () => undefined);
  const what = resolution.conflicts.length
    ? `Resolve the conflict in ${resolution.conflicts.join(', ')} (remove every conflict marker), save, then choose Continue.`
    : 'The integration branch is merged into the task\'s worktree; fix what the integration gate found there, then choose Continue.';
  const choice = await vscode.window.showInformationMessage(`Taskloom: ${ref.taskId} is yours to resolve. ${what}`, 'Continue', 'Open Worktree');
  if (choice === 'Continue') await continueTask(services, ref);
  if (choice === 'Open Worktree') await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(resolution.path), { forceNewWindow: true });
}

/**
 * Continue after resolving by hand: the gate runs on the result; when it passes the task is merged
 * and the run goes on. Hand Back (the same decision on a task the person stopped or took over): the
 * run goes on with it, its worktree gated and reviewed as an actor's attempt.
 */
export async function continueTask(services: Services, arg?: unknown, action: 'continue' | 'handBack' = 'continue'): Promise<void> {
  const nothing = action === 'handBack' ? 'Taskloom: no task you stopped or took over waits to be handed back.' : 'Taskloom: no task is being resolved by hand.';
  const ref = await pickTaskFor(services.controller, arg, action, nothing);
  if (!ref) return;
  let result;
  try {
    const sent = await requestTrustingRun(services.confirm, (trust) => services.engine.request(ContinueTaskRequest.type, { ...ref, ...trust }));
    if (!sent) return;
    result = sent.answer;
  } catch (error) {
    showError(action === 'handBack' ? 'hand the task back' : 'continue the task', error);
    return;
  }
  if (!result.passed) {
    const failure = result.failure;
    const choice = await vscode.window.showWarningMessage(
      `Taskloom: the gate does not pass on ${ref.taskId} yet: ${failure ? `\`${failure.command}\` exited ${failure.exitCode}` : 'it failed'}. Fix it, then Continue again.`,
      'Show Output',
    );
    if (choice === 'Show Output' && failure) {
      await services.readOnlyText.show(`Gate output ${ref.taskId}.log`, failure.output);
    }
    return;
  }
  services.controller.model.setActive(ref.folder, ref.runId, true);
  services.driveProgress.show(ref);
}

async function sendDecision(services: Services, ref: TaskRef, decision: { action: 'retry' | 'accept' | 'skip'; note?: string }): Promise<void> {
  const params = { ...ref, ...decision };
  const sinceSeq = services.controller.model.run(ref.folder, ref.runId)?.state?.lastSeq;
  try {
    // The run is driven afterwards: one not started on this machine needs the user's say-so first.
    const sent = await requestTrustingRun(services.confirm, (trust) => services.engine.request(TaskDecisionRequest.type, { ...params, ...trust }));
    if (!sent) return;
  } catch (error) {
    showError(`${decision.action} the task`, error);
    return;
  }
  services.controller.model.setActive(ref.folder, ref.runId, true, sinceSeq);
  services.driveProgress.show(ref);
}

export async function openTaskWorktree(services: Services, arg?: unknown, where?: 'newWindow' | 'workspace'): Promise<void> {
  const ref = await pickTaskFor(services.controller, arg, 'openWorktree', 'Taskloom: no task has a worktree.');
  if (!ref) return;
  const task = (await services.controller.state(ref.folder, ref.runId))?.tasks[ref.taskId];
  const path = task?.worktreePath;
  if (!path) return;
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
