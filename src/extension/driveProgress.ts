import * as vscode from 'vscode';
import { CancelRequest } from '../protocol/engineProtocol';
import type { RunRef } from './commands/runRef';
import { showError } from './engine/userErrors';
import type { Services } from './services';
import { plainText } from './tree/presentation';

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
            const what = state?.status === 'integrating' ? 'merging green work' : busy ? `${busy.id}: ${busy.state.toLowerCase().replace('_', ' ')}` : entry.summary.status;
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
          }
          update();
        }),
    );
}
