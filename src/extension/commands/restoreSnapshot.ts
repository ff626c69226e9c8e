import * as vscode from 'vscode';
import { isWaitingForHuman } from '../../engine/domain/taskStates';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import { counted } from '../../engine/text/counted';
import { RestoreSnapshotRequest } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { runCommand } from '../runCommand';
import { isRunRef } from '../targets/runRef';

/**
 * The run view's Restore on an actor snapshot in the ledger (`arg`: the run and the entry's seq): puts the task's worktree back as it
 * was before that attempt (what the CLI's ledger words as `git checkout <snapshot> -- .`), once
 * the user agreed, and says what it put back.
 */
export async function restoreSnapshot(services: Services, arg?: unknown): Promise<void> {
  const seq = (arg as { seq?: unknown } | undefined)?.seq;
  if (!isRunRef(arg) || typeof seq !== 'number' || !Number.isInteger(seq)) return;
  const ref = { folder: arg.folder, runId: arg.runId };
  const state = await services.controller.state(ref.folder, ref.runId);
  const decision = state?.decisions.find((d) => d.seq === seq);
  if (decision?.fact.type !== 'actor_snapshot' || decision.taskId === undefined) return;
  const { attempt } = decision.fact;
  const task = state!.tasks[decision.taskId];
  // The view shows Restore only on a task that waits for you; the run may have moved on since.
  if (!task || !isWaitingForHuman(task.state)) {
    void vscode.window.showInformationMessage(`Taskloom: "${decision.taskId}" is ${TASK_STATE_WORDS[task?.state ?? 'PENDING']} now, so its worktree is not restored.`);
    return;
  }
  const agreed = await services.confirm(
    `Put back the worktree of "${task.id}" as it was before attempt ${attempt}?`,
    'The files the attempts since changed or deleted are restored; files they created stay. Retry then hands the worktree to the agent, Resolve Task by Hand keeps it yours.',
    'Restore',
  );
  if (!agreed) return;
  try {
    const restored = await services.engine.request(RestoreSnapshotRequest.type, { ...ref, seq });
    const choice = await vscode.window.showInformationMessage(
      restored.files.length
        ? `Taskloom: put back ${counted(restored.files.length, 'file')} in the worktree of "${task.id}", as before attempt ${attempt}.`
        : `Taskloom: the worktree of "${task.id}" already held what it held before attempt ${attempt}.`,
      'Open Task Worktree',
    );
    if (choice) await runCommand('taskloom.openTaskWorktree', { ...ref, taskId: task.id });
  } catch (error) {
    showError('restore the snapshot', error);
  }
}
