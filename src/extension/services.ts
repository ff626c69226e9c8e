import type * as vscode from 'vscode';
import type { Confirm } from './confirm';
import type { EngineClient } from './connection/engineClient';
import type { ReadOnlyTexts } from './documents/readOnlyText';
import type { DriveProgress } from './driveProgress';
import type { RunsController } from './runsController';
import type { RunViews } from './runView/runViews';
import type { Insights } from './insights/insightsPanel';
import type { RunRef } from './targets/runRef';
import type { NeedsYouTreeProvider } from './tree/needsYouTreeProvider';
import type { RunsNode, RunsTreeProvider } from './tree/runsTreeProvider';

/** What the commands and views share; built once in `activate`, and all the state the window keeps. */
export interface Services {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  controller: RunsController;
  runsTree: RunsTreeProvider;
  runsView: vscode.TreeView<RunsNode>;
  needsYou: NeedsYouTreeProvider;
  readonly runViews: RunViews;
  /** The Insights page: the figures of `taskloom stats` across the folder's runs. */
  readonly insights: Insights;
  readOnlyText: ReadOnlyTexts;
  driveProgress: DriveProgress;
  /** Every modal confirmation (the test API answers them in the user's place). */
  confirm: Confirm;
  /** Plan edits open in this window, by the edited file's path. */
  planEdits: Map<string, RunRef>;
  /** Plan files shown with their problems so that a run can start from them once fixed: by path, the folder it would start in. */
  planFixes: Map<string, string>;
  /** The problems of plan edits and plan files, where they are in the file. */
  planDiagnostics: vscode.DiagnosticCollection;
  /** Runs whose pull requests this window keeps green, so a second Keep Green joins the first instead of racing it. */
  pullRequestWatches: Map<string, Promise<void>>;
  /** The row last selected in the Runs or the Needs You view: what a keybinding with no argument acts on. */
  selectedRow?: RunRef & { taskId?: string };
}
