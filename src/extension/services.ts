import type * as vscode from 'vscode';
import type { RunViewFocus } from '../protocol/webviewMessages';
import type { EngineClient } from './connection/engineClient';
import type { RunsController } from './runsController';
import type { NeedsYouTreeProvider } from './tree/needsYouTreeProvider';
import type { RunsNode, RunsTreeProvider } from './tree/runsTreeProvider';

/** What the commands and views share; built once in `activate`. */
export interface Services {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  controller: RunsController;
  runsTree: RunsTreeProvider;
  runsView: vscode.TreeView<RunsNode>;
  needsYou: NeedsYouTreeProvider;
  /** Opens (or reveals) the run view of a run; with `focus`, on that ledger entry or task. */
  showRun(folder: string, runId: string, focus?: RunViewFocus): Promise<void>;
}
