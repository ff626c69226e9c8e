import * as vscode from 'vscode';
import type { RunViewFocus, RunViewPersistedState } from '../../protocol/webviewMessages';
import { Disposable, toDisposable } from '../disposable';
import { options, RunViewPanel, type RunViewServices, type RunViewTap } from './runViewPanel';

export const RUN_VIEW_TYPE = 'taskloom.runView';

/** The window's run views, one per run; a reload restores them through the serializer. */
export class RunViews extends Disposable {
  private readonly open = new Map<string, RunViewPanel>();
  tap: RunViewTap | undefined;

  constructor(private readonly services: RunViewServices) {
    super();
    this._register(
      vscode.window.registerWebviewPanelSerializer(RUN_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, persisted: RunViewPersistedState | undefined) => {
          if (!persisted?.folder || !persisted.runId) {
            panel.dispose();
            return;
          }
          panel.webview.options = options(services.context);
          this.add(panel, persisted.folder, persisted.runId);
        },
      }),
    );
    this._register(toDisposable(() => [...this.open.values()].forEach((view) => view.dispose())));
  }

  /** Opens (or reveals) the run's view; with `focus`, it lands on that ledger entry or task. */
  show(folder: string, runId: string, focus?: RunViewFocus): void {
    const existing = this.open.get(key(folder, runId));
    if (existing) {
      existing.reveal(focus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(RUN_VIEW_TYPE, 'Taskloom run', vscode.ViewColumn.Active, options(this.services.context));
    this.add(panel, folder, runId, focus);
  }

  panels(): RunViewPanel[] {
    return [...this.open.values()];
  }

  private add(panel: vscode.WebviewPanel, folder: string, runId: string, focus?: RunViewFocus): void {
    const view = new RunViewPanel(this.services, () => this.tap, panel, folder, runId, focus);
    this.open.set(key(folder, runId), view);
    panel.onDidDispose(() => {
      if (this.open.get(key(folder, runId)) === view) this.open.delete(key(folder, runId));
    });
  }
}

const key = (folder: string, runId: string) => `${folder}\u0000${runId}`;
