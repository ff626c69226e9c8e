import * as vscode from 'vscode';
import { registerChatParticipant } from './chat/chatParticipant';
import { registerTaskloomTools } from './chat/taskloomTools';
import { modalConfirm } from './confirm';
import { CriticDiagnostics } from './diagnostics';
import { toDisposable } from './disposable';
import { BRANCH_FILE_SCHEME, BranchFileDocuments } from './documents/branchFileDocuments';
import { GIT_SCHEME, GitContentProvider } from './documents/commitFileDocuments';
import { ReadOnlyTexts } from './documents/readOnlyText';
import { DriveProgress } from './driveProgress';
import { EngineClient } from './connection/engineClient';
import { reporting } from './connection/userErrors';
import { keepLogIn, log } from './logger';
import { PLAN_SCHEME, PlanDocumentProvider } from './plans/planDocument';
import { watchPlanEdits } from './plans/planEdits';
import { promptToResume } from './resumePrompt';
import { RunsController } from './runsController';
import { RunViews } from './runView/runViews';
import { Insights } from './insights/insightsPanel';
import type { Services } from './services';
import { isResumable } from './state/resumable';
import { RunStatusBar } from './statusBar';
import { NeedsYouNotices } from './needsYouNotices';
import { NotifyTargetSync } from './notify/notifyTargetSync';
import { PullRequestNotices } from './pullRequestNotices';
import { BaselineChoiceNotices } from './baselineChoiceNotices';
import { NeedsYouTreeProvider } from './tree/needsYouTreeProvider';
import { TREE_VIEWS } from './tree/contextValues';
import { RunsTreeProvider } from './tree/runsTreeProvider';
import { runPendingDemo } from './commands/demoCommand';
import { watchUnfinishedPullRequests } from './commands/pullRequestCommands';
import { registerCommands } from './commands/registerCommands';
import { testApi, type TaskloomTestApi } from './testApi';
import { unsupportedPlatformError } from '../engine/domain/platform';
import { errorText } from '../engine/domain/taskloomError';

/**
 * Activation wires the views and commands and returns at once: the engine process starts on
 * first use (a command, the Runs view, or a workspace that has runs to resume).
 */
export function activate(context: vscode.ExtensionContext): TaskloomTestApi | undefined {
  const started = performance.now();
  keepLogIn(context.logUri);
  const unsupported = unsupportedPlatformError(process.platform);
  if (unsupported) {
    // Nothing is registered: commands answer "not found" rather than fail deep in a run.
    void vscode.window.showErrorMessage(`Taskloom: ${errorText(unsupported)}`);
    return undefined;
  }
  const notifyTargets = new NotifyTargetSync(context.secrets);
  const engine = new EngineClient(context.asAbsolutePath('dist/engine-server.js'), (send) => notifyTargets.sendTo(send));
  notifyTargets.follow(engine);
  activeEngine = engine;
  const controller = new RunsController(engine);
  const runsTree = new RunsTreeProvider(controller);
  const runsView = vscode.window.createTreeView(TREE_VIEWS.runs, { treeDataProvider: runsTree, showCollapseAll: true });
  const needsYou = new NeedsYouTreeProvider(controller);
  const needsYouView = vscode.window.createTreeView(TREE_VIEWS.needsYou, { treeDataProvider: needsYou });
  let runViews: RunViews | undefined;
  let insights: Insights | undefined;
  const services: Services = {
    context,
    engine,
    controller,
    runsTree,
    runsView,
    needsYou,
    // Made on first use: a run view needs the services it is part of.
    get insights() {
      return (insights ??= new Insights(services));
    },
    get runViews() {
      return (runViews ??= new RunViews(services));
    },
    readOnlyText: new ReadOnlyTexts(),
    driveProgress: new DriveProgress(controller, engine),
    confirm: modalConfirm,
    planEdits: new Map(),
    planFixes: new Map(),
    planDiagnostics: vscode.languages.createDiagnosticCollection('taskloom-plan'),
    pullRequestWatches: new Map(),
  };
  context.subscriptions.push(
    log,
    notifyTargets,
    controller,
    runsTree,
    runsView,
    needsYou,
    needsYouView,
    services.runViews,
    { dispose: () => insights?.dispose() },
    services.readOnlyText,
    services.planDiagnostics,
    new RunStatusBar(controller, engine),
    new NeedsYouNotices(controller),
    new PullRequestNotices(controller),
    new BaselineChoiceNotices(controller),
    new CriticDiagnostics(controller),
    vscode.workspace.registerTextDocumentContentProvider(BRANCH_FILE_SCHEME, new BranchFileDocuments(services)),
    vscode.workspace.registerTextDocumentContentProvider(GIT_SCHEME, new GitContentProvider(services)),
    vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, new PlanDocumentProvider(services)),
    watchPlanEdits(services),
    ...registerTaskloomTools(services),
    registerChatParticipant(services),
    ...[runsView, needsYouView].map((view) =>
      view.onDidChangeSelection(({ selection: [row] }) => {
        services.selectedRow = row && 'runId' in row ? { folder: row.folder, runId: row.runId, ...('taskId' in row ? { taskId: row.taskId } : {}) } : undefined;
      }),
    ),
    needsYou.onDidChangeCount((count) => {
      needsYouView.badge = count ? { value: count, tooltip: count === 1 ? '1 thing needs you' : `${count} things need you` } : undefined;
      void vscode.commands.executeCommand('setContext', 'taskloom.needsYouCount', count);
    }),
    toDisposable(
      controller.model.onDidChange(() => {
        const runs = controller.model.allRuns();
        void vscode.commands.executeCommand('setContext', 'taskloom.hasResumableRun', runs.some(isResumable));
        showRunsListed(controller);
      }),
    ),
    ...registerCommands(services),
  );
  // Showing the Runs view is a reason to start the engine; so is a workspace with runs in it.
  let listed = false;
  const listOnce = () => {
    if (listed) return;
    listed = true;
    void reporting('list the runs', () => controller.refreshAll())();
  };
  context.subscriptions.push(runsView.onDidChangeVisibility(({ visible }) => visible && listOnce()));
  if (runsView.visible) listOnce();
  void foldersWithoutRuns(controller.folders()).then((empty) => {
    for (const folder of empty) controller.markListed(folder);
    showRunsListed(controller);
  });
  void hasRuns(controller.folders()).then((any) => {
    if (!any) return;
    listed = true;
    void promptToResume(services)
      .catch((error: unknown) => log.error(`resume check failed: ${String(error)}`))
      .then(() => watchUnfinishedPullRequests(services));
  });
  void runPendingDemo(services);
  const activationMs = performance.now() - started;
  log.info(`activated in ${activationMs.toFixed(1)} ms`);
  return context.extensionMode === vscode.ExtensionMode.Test ? testApi(services, activationMs) : undefined;
}

async function hasRuns(folders: string[]): Promise<boolean> {
  for (const folder of folders) {
    try {
      await vscode.workspace.fs.stat(vscode.Uri.file(`${folder}/.taskloom/state.json`));
      return true;
    } catch {
      // no runs in this folder
    }
  }
  return false;
}

/**
 * The Runs view's welcome says "loading" until every folder's runs are listed, and "no runs" only
 * then, when there are none: both keys are set from the model as it has them, runs first.
 */
function showRunsListed(controller: RunsController): void {
  void vscode.commands.executeCommand('setContext', 'taskloom.hasRuns', controller.model.allRuns().length > 0);
  void vscode.commands.executeCommand('setContext', 'taskloom.runsListed', controller.allListed);
}

/** Folders with no `.taskloom` folder: they have no runs, known without asking the engine. */
async function foldersWithoutRuns(folders: string[]): Promise<string[]> {
  const stats = await Promise.all(folders.map((folder) => vscode.workspace.fs.stat(vscode.Uri.file(`${folder}/.taskloom`)).then(() => true, () => false)));
  return folders.filter((_, i) => !stats[i]);
}

let activeEngine: EngineClient | undefined;

/** Stops the engine (agents and gates it runs are stopped; an unfinished run stays resumable). */
export async function deactivate(): Promise<void> {
  await activeEngine?.dispose();
  activeEngine = undefined;
}
