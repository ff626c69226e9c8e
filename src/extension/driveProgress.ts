import * as vscode from 'vscode';
import { CancelRequest } from '../protocol/engineProtocol';
import type { RunRef } from './commands/runRef';
import { showError } from './engine/userErrors';
import type { Services } from './services';
import { isWaitingForHuman } from '../engine/domain/taskStates';
import { plainText } from './tree/presentation';
import { RUN_STATUS_WORDS, TASK_STATE_WORDS } from '../engine/domain/stateWords';

const shown = new Set<string>();

/**
 * A progress notification for a run the engine is driving: green/total and what is happening,
 * with a Cancel button that cancels the engine's work (agents and gates are stopped). Ends
 * when the engine stops working on the run.
 */
export function showDriveProgress(services: Services, ref: RunRef): void {
  const key = `${ref.folder}\u0000${ref.runId}`;
  if (shown.has(key)) return;
  shown.add(key);
  const { model } = services.controller;
  void vscode.window
    .withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Taskloom', cancellable: true },
      (progress, token) =>
        new Promise<void>((resolve) => {
          let lastMessage = '';
          const update = () => {
            const entry = model.run(ref.folder, ref.runId);
            if (!entry || !entry.summary.active) {
              stop();
              return;
            }
            const state = entry.state;
            const busy = state?.taskOrder.map((id) => state.tasks[id]!).find((t) => ['BUILDING', 'GATING', 'CRITIC_REVIEWING'].includes(t.state));
            const what = state?.status === 'integrating' ? 'merging green work' : busy ? `${busy.id}: ${TASK_STATE_WORDS[busy.state]}` : RUN_STATUS_WORDS[entry.summary.status];
            const message = `${entry.summary.done}/${entry.summary.total} done — ${plainText(what, 80)}`;
            if (message !== lastMessage) progress.report({ message });
            lastMessage = message;
          };
          const unsubscribe = model.onDidChange(update);
          const cancel = token.onCancellationRequested(() => {
            services.engine.request(CancelRequest.type, ref).catch((error: unknown) => showError('cancel the run', error));
          });
          function stop() {
            unsubscribe();
            cancel.dispose();
            shown.delete(key);
            resolve();
            notifyRunEnded(services, ref);
          }
          update();
        }),
    );
}

/**
 * When the progress toast goes, say how the run ended, with the next step a button away: the
 * toast vanishing alone reads as nothing (or everything) having happened. A run the engine merely
 * stopped driving (it died) is told by the engine-restart notice instead.
 */
function notifyRunEnded(services: Services, ref: RunRef): void {
  const entry = services.controller.model.run(ref.folder, ref.runId);
  if (!entry || entry.summary.active) return;
  const { summary } = entry;
  const goal = `"${plainText(summary.goal, 60)}"`;
  const counts = `${summary.done}/${summary.total} done`;
  const open = (choice: string | undefined) => {
    if (choice === 'Show Run') void vscode.commands.executeCommand('taskloom.showRun', ref);
    if (choice === 'Apply Integration…') void vscode.commands.executeCommand('taskloom.applyIntegration', ref);
  };
  switch (summary.status) {
    case 'completed':
      void vscode.window.showInformationMessage(`Taskloom: ${goal} completed — ${counts}, integration gate passed.`, 'Apply Integration…', 'Show Run').then(open);
      return;
    case 'needs_human': {
      const waiting = entry.state ? Object.values(entry.state.tasks).filter((t) => isWaitingForHuman(t.state)).length : 0;
      const who = waiting ? `${waiting} task${waiting === 1 ? '' : 's'} need${waiting === 1 ? 's' : ''} you` : 'it needs you';
      void vscode.window.showWarningMessage(`Taskloom: ${goal} stopped — ${counts}; ${who}.`, 'Show Run').then(open);
      return;
    }
    case 'paused':
      void vscode.window.showWarningMessage(`Taskloom: ${goal} paused — ${counts}. Resume it later with Taskloom: Resume Last Run.`, 'Show Run').then(open);
      return;
    case 'cancelled':
      void vscode.window.showInformationMessage(`Taskloom: ${goal} cancelled — ${counts}.`, 'Show Run').then(open);
      return;
    case 'failed':
      void vscode.window.showErrorMessage(`Taskloom: ${goal} failed — ${counts}.`, 'Show Run').then(open);
      return;
    default:
  }
}