import * as vscode from 'vscode';
import { DiffRequest, type ChangedFile, type DiffResult } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import { gitUri } from '../documents/commitFileDocuments';
import type { Services } from '../services';
import { pickRunFor, pickTaskFor } from '../targets/pickTarget';
import type { RunRef, TaskRef } from '../targets/runRef';

function resources(folder: string, diff: DiffResult, file: ChangedFile): [vscode.Uri, vscode.Uri, vscode.Uri] {
  const before = gitUri(folder, diff.base, file.oldPath ?? file.path);
  const after = gitUri(folder, diff.head, file.path);
  return [vscode.Uri.file(`${folder}/${file.path}`), before, after];
}

/** Opens the changes file by file in VS Code's diff editor (the multi-file one when there are several). */
async function openDiff(ref: RunRef, title: string, diff: DiffResult): Promise<void> {
  if (diff.files.length === 0) {
    void vscode.window.showInformationMessage(`${title}: no committed changes.${diff.uncommitted.length ? ` Uncommitted in the worktree: ${diff.uncommitted.join(', ')}` : ''}`);
    return;
  }
  if (diff.files.length === 1) {
    const [, before, after] = resources(ref.folder, diff, diff.files[0]!);
    await vscode.commands.executeCommand('vscode.diff', before, after, `${title}: ${diff.files[0]!.path}`);
  } else {
    await vscode.commands.executeCommand('vscode.changes', title, diff.files.map((file) => resources(ref.folder, diff, file)));
  }
  if (diff.uncommitted.length) {
    void vscode.window.showInformationMessage(`The worktree also has uncommitted changes not shown: ${diff.uncommitted.join(', ')}`);
  }
}

/** A task's diff; with `reviewSeq` in the argument (a critic entry of the ledger), the diff that review read. */
export async function showTaskDiff(services: Services, arg?: unknown): Promise<void> {
  // Completed runs too: their tasks' diffs are what a user reviews before applying.
  const ref = await pickTaskFor(services.controller, arg, 'diff', 'Taskloom: no task has work to show yet.', { completedRuns: true });
  if (!ref) return;
  const { reviewSeq, candidate } = (arg ?? {}) as { reviewSeq?: unknown; candidate?: unknown };
  if (Number.isInteger(candidate)) {
    await showCandidateDiff(services, ref, candidate as number);
    return;
  }
  try {
    const diff = await services.engine.request(DiffRequest.type, { ...ref, ...(Number.isInteger(reviewSeq) ? { reviewSeq: reviewSeq as number } : {}) });
    const review = diff.review;
    if (review?.source === 'unrecorded') {
      void vscode.window.showInformationMessage(
        `This run's log does not record what review ${review.number} of ${ref.taskId} read (it was written before Taskloom recorded it), so the diff shown is the task's current one.`,
      );
    }
    const title = review && review.source !== 'unrecorded' ? `Taskloom ${ref.taskId}, review ${review.number}` : `Taskloom ${ref.taskId}`;
    await openDiff(ref, title, diff);
  } catch (error) {
    showError('show the task diff', error);
  }
}

/** What one candidate of a task built (its card in the run view): its branch against the task's start. */
async function showCandidateDiff(services: Services, ref: TaskRef, candidate: number): Promise<void> {
  try {
    const diff = await services.engine.request(DiffRequest.type, { ...ref, candidate });
    await openDiff(ref, `Taskloom ${ref.taskId}, candidate ${candidate}`, diff);
  } catch (error) {
    showError('show the candidate diff', error);
  }
}

export async function showIntegrationDiff(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'integrationDiff', 'Taskloom: no run has integrated work yet.');
  if (!ref) return;
  try {
    const diff = await services.engine.request(DiffRequest.type, { folder: ref.folder, runId: ref.runId });
    await openDiff(ref, `Taskloom integration ${ref.runId}`, diff);
  } catch (error) {
    showError('show the integration diff', error);
  }
}
