import * as vscode from 'vscode';
import { RunStatsRequest } from '../../protocol/engineProtocol';
import type { FromInsights, ToInsights } from '../../protocol/insightsMessages';
import type { EngineClient } from '../connection/engineClient';
import { showError } from '../connection/userErrors';
import { Disposable, toDisposable } from '../disposable';
import { runCommand } from '../runCommand';
import { createNonce, runViewHtml } from '../runView/runViewHtml';
import { options } from '../runView/runViewPanel';

export const INSIGHTS_VIEW_TYPE = 'taskloom.insights';

/** What the Insights page uses of the window's services. */
export interface InsightsServices {
  context: vscode.ExtensionContext;
  engine: EngineClient;
}

/**
 * The Insights page: the figures of `taskloom stats` (the engine's runStats, the same use case as
 * the CLI's) as charts, one panel per window for the folder it was opened on. The figures are asked
 * for again when the webview is (re)loaded and when a run of the folder ends; a click on a figure
 * opens its run in the run view.
 */
export class Insights extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private folder = '';
  /** Messages to the webview, for the in-VS-Code tests (the test API reads it; nothing else does). */
  readonly sent: ToInsights[] = [];

  constructor(private readonly services: InsightsServices) {
    super();
    this._register(toDisposable(() => this.panel?.dispose()));
    this._register(
      services.engine.onEvents((params) => {
        if (params.folder === this.folder && params.events.some((e) => e.type === 'run_finished')) void this.sendStats();
      }),
    );
  }

  show(folder: string): void {
    this.folder = folder;
    if (this.panel) {
      this.panel.reveal(undefined, false);
      void this.sendStats();
      return;
    }
    const panel = vscode.window.createWebviewPanel(INSIGHTS_VIEW_TYPE, 'Taskloom Insights', vscode.ViewColumn.Active, options(this.services.context));
    this.panel = panel;
    const root = this.services.context.extensionUri;
    const { webview } = panel;
    panel.iconPath = vscode.Uri.joinPath(root, 'media', 'taskloom.svg');
    webview.html = runViewHtml({
      cspSource: webview.cspSource,
      nonce: createNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'webview', 'insights.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'media', 'insights.css')).toString(),
      codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'codicons', 'codicon.css')).toString(),
      title: panel.title,
      loading: 'Adding up the runs…',
    });
    const messages = webview.onDidReceiveMessage((message: FromInsights) => void this.onMessage(message));
    panel.onDidDispose(() => {
      messages.dispose();
      if (this.panel === panel) this.panel = undefined;
    });
  }

  private async onMessage(message: FromInsights): Promise<void> {
    if (message.type === 'ready') await this.sendStats();
    else if (message.type === 'openRuns' && Array.isArray(message.runIds)) await this.openRuns(message.runIds.filter((id): id is string => typeof id === 'string'));
  }

  /** A figure over several runs (an agent's, a role's) asks which of them to open, newest first. */
  private async openRuns(runIds: readonly string[]): Promise<void> {
    const runId =
      runIds.length > 1
        ? (await vscode.window.showQuickPick([...runIds].reverse(), { title: 'Taskloom: the runs behind this figure', placeHolder: 'Open which run?' }))
        : runIds[0];
    if (runId) await runCommand('taskloom.showRun', { folder: this.folder, runId });
  }

  private async sendStats(): Promise<void> {
    const panel = this.panel;
    if (!panel) return;
    try {
      const { stats, warnings } = await this.services.engine.request(RunStatsRequest.type, { folder: this.folder });
      const message: ToInsights = { type: 'stats', stats, warnings };
      this.sent.push(message);
      await panel.webview.postMessage(message);
    } catch (error) {
      await showError('Taskloom could not add up the runs', error);
    }
  }
}
