import * as vscode from 'vscode';
import type { RunEvent } from '../../engine/domain/events';
import type { TaskDecision } from '../../engine/domain/runActions';
import type { FromWebview, NextStep, RunViewFocus, ToWebview } from '../../protocol/webviewMessages';
import { RunEventRequest, TranscriptRequest } from '../../protocol/engineProtocol';
import { firstPage, historiesOf, type TranscriptCallLines } from '../../protocol/runViewPages';
import type { CommandId } from '../commandIds';
import type { EngineClient } from '../connection/engineClient';
import { showError } from '../connection/userErrors';
import { Disposable, toDisposable } from '../disposable';
import { gateOutputText } from '../documents/gateOutputText';
import type { ReadOnlyTexts } from '../documents/readOnlyText';
import { runCommand } from '../runCommand';
import type { RunsController } from '../runsController';
import { runViewTitle } from '../tree/presentation';
import type { RunsNode, RunsTreeProvider } from '../tree/runsTreeProvider';
import { createNonce, runViewHtml } from './runViewHtml';

/**
 * The view's buttons are intents: each runs a registered command (the very commands of the tree's
 * inline actions and the plan approval), which a command module handles; the view imports none.
 */
const DECISION_COMMANDS: Record<TaskDecision, CommandId> = {
  retry: 'taskloom.retryTask',
  accept: 'taskloom.acceptTask',
  skip: 'taskloom.skipTask',
  resolve: 'taskloom.resolveTask',
  continue: 'taskloom.continueTask',
  handBack: 'taskloom.handBackTask',
  stop: 'taskloom.stopTask',
  takeOver: 'taskloom.takeOverTask',
};
const PLAN_COMMANDS = { approve: 'taskloom.approvePlan', edit: 'taskloom.editPlan', cancel: 'taskloom.rejectPlan' } as const satisfies Record<string, CommandId>;
const PLAN_TASK_FIX_COMMANDS = { fill: 'taskloom.fillInPlanTask', drop: 'taskloom.dropPlanTask' } as const satisfies Record<string, CommandId>;
const DELIVERY_COMMANDS = { apply: 'taskloom.applyIntegration', pullRequest: 'taskloom.openPullRequest' } as const satisfies Record<string, CommandId>;
const NEXT_STEP_COMMANDS: Record<NextStep, CommandId> = {
  resume: 'taskloom.resumeRun',
  treatAsAdvisory: 'taskloom.treatAsAdvisory',
  keepAsRequired: 'taskloom.keepAsRequired',
  cancelRun: 'taskloom.cancelRun',
  planAgain: 'taskloom.planAgain',
  startWithPlan: 'taskloom.startAgainWithPlan',
  openRejectedPlan: 'taskloom.openRejectedPlan',
};

/**
 * What a run view uses of the window's services (services.ts has them all): said here, so the run
 * view depends on these parts and not on the services that hold the run views.
 */
export interface RunViewServices {
  context: vscode.ExtensionContext;
  engine: EngineClient;
  controller: RunsController;
  runsTree: RunsTreeProvider;
  runsView: vscode.TreeView<RunsNode>;
  readOnlyText: ReadOnlyTexts;
}

/** Sees every message between a run view and its webview (the test API installs one; nothing else does). */
export interface RunViewTap {
  toWebview(view: RunViewPanel, message: ToWebview): void;
  fromWebview(view: RunViewPanel, message: FromWebview): void;
}

/**
 * One webview panel per run: the plan graph, the decisions ledger, the timeline and usage.
 * It gets the run's state once and then the same events the tree folds (RunViews opens it,
 * and restores it after a reload from folder + run id).
 */
export class RunViewPanel extends Disposable {
  private sentDriven: boolean | undefined;
  private sentRemote: boolean | undefined;
  private sentSeq = 0;
  private ready = false;
  /** A deep link waiting for the webview to have the run. */
  private pendingFocus: RunViewFocus | undefined;

  constructor(
    private readonly services: RunViewServices,
    /** The window's tap (RunViews.tap), if one is installed when a message passes. */
    private readonly tap: () => RunViewTap | undefined,
    readonly panel: vscode.WebviewPanel,
    readonly folder: string,
    readonly runId: string,
    focus?: RunViewFocus,
  ) {
    super();
    this.pendingFocus = focus;
    const entry = services.controller.model.run(folder, runId);
    panel.title = runViewTitle(entry?.summary.goal, runId);
    panel.iconPath = vscode.Uri.joinPath(services.context.extensionUri, 'media', 'taskloom.svg');
    panel.webview.html = this.html();
    this._register(panel);
    this._register(panel.onDidDispose(() => this.dispose()));
    // A hidden webview is discarded; it says `ready` again when shown and gets the state anew.
    this._register(
      panel.onDidChangeViewState(({ webviewPanel }) => {
        if (!webviewPanel.visible) this.ready = false;
      }),
    );
    this._register(panel.webview.onDidReceiveMessage((message: FromWebview) => void this.onMessage(message)));
    this._register(
      services.engine.onEvents((params) => {
        if (params.folder === folder && params.runId === runId) this.sendEvents(params.events);
      }),
    );
    this._register(services.engine.onDidRestart(() => void this.sendState({ refetch: true })));
    this._register(toDisposable(services.controller.model.onDidChange(() => this.sendDriven())));
  }

  /** Brings the panel to the front; with `focus`, it lands on that ledger entry or task. */
  reveal(focus?: RunViewFocus): void {
    this.panel.reveal(undefined, false);
    if (focus) this.focus(focus);
  }

  /**
   * Tells the view when the run stops (or starts) being driven (the engine or the window went away,
   * or a resume), and whether a pull request could be pushed (the folder's runs were listed again).
   */
  private sendDriven(force = false): void {
    if (!this.ready) return;
    const driven = this.services.controller.model.run(this.folder, this.runId)?.summary.active ?? false;
    if (force || driven !== this.sentDriven) {
      this.sentDriven = driven;
      this.post({ type: 'driven', driven });
    }
    const hasPullRequestRemote = this.services.controller.hasPullRequestRemote(this.folder);
    if (hasPullRequestRemote !== undefined && (force || hasPullRequestRemote !== this.sentRemote)) {
      this.sentRemote = hasPullRequestRemote;
      this.post({ type: 'repository', hasPullRequestRemote });
    }
  }

  /** Sent at once to a webview that has the run; otherwise after the state it is about to get. */
  private focus(focus: RunViewFocus): void {
    if (this.ready && this.panel.visible) this.post({ type: 'focus', ...focus });
    else this.pendingFocus = focus;
  }

  private html(): string {
    const { webview } = this.panel;
    const root = this.services.context.extensionUri;
    return runViewHtml({
      cspSource: webview.cspSource,
      nonce: createNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'webview', 'runView.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'media', 'runView.css')).toString(),
      codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'dist', 'codicons', 'codicon.css')).toString(),
      title: this.panel.title,
    });
  }

  private post(message: ToWebview): void {
    this.tap()?.toWebview(this, message);
    void this.panel.webview.postMessage(message);
  }

  /** The run as the tree holds it (kept current by events), or fetched anew after an engine restart or a gap. */
  private async sendState(options: { refetch?: boolean } = {}): Promise<void> {
    const { controller } = this.services;
    const state = options.refetch ? await controller.loadRun(this.folder, this.runId) : await controller.state(this.folder, this.runId);
    if (!state) {
      void vscode.window.showWarningMessage(`Taskloom: run ${this.runId} is no longer in ${this.folder}.`);
      return;
    }
    this.sentSeq = state.lastSeq;
    this.panel.title = runViewTitle(state.goal, this.runId);
    // A first page: a long run's histories and older decisions follow when a tab asks for them.
    this.post({ type: 'state', ...firstPage(state) });
    this.sendDriven(true);
    if (this.pendingFocus) {
      this.post({ type: 'focus', ...this.pendingFocus });
      this.pendingFocus = undefined;
    }
  }

  /** What a first page left out, as of the last event the webview was sent (it ignores an answer of another seq). */
  private async sendRest(what: 'decisions' | 'histories'): Promise<void> {
    const state = await this.services.controller.state(this.folder, this.runId);
    if (!state || !this.ready) return;
    if (what === 'decisions') this.post({ type: 'decisions', seq: state.lastSeq, decisions: state.decisions });
    else this.post({ type: 'histories', seq: state.lastSeq, histories: historiesOf(state) });
  }

  /** The lines of these calls (by TranscriptRecord.seq), read from the log by the batches the run's state lists. */
  private async sendTranscript(calls: number[]): Promise<void> {
    const answer: TranscriptCallLines[] = calls.map((seq) => ({ seq, batches: [] }));
    try {
      const state = await this.services.controller.state(this.folder, this.runId);
      const wanted = new Set(calls);
      const records = state ? [...state.transcripts, ...Object.values(state.tasks).flatMap((t) => t.transcripts)].filter((r) => wanted.has(r.seq)) : [];
      const seqs = records.flatMap((r) => r.batches);
      if (seqs.length > 0) {
        const { batches } = await this.services.engine.request(TranscriptRequest.type, { folder: this.folder, runId: this.runId, seqs });
        const byCall = new Map(answer.map((call) => [call.seq, call]));
        for (const { call, ...batch } of batches) byCall.get(call)?.batches.push(batch);
      }
    } catch (error) {
      // Answered with what there is, so the view stops waiting; the error is the user's to see.
      showError('read the transcript', error);
    }
    this.post({ type: 'transcript', calls: answer });
  }

  private sendEvents(events: RunEvent[]): void {
    if (!this.ready) return;
    const fresh = events.filter((e) => e.seq > this.sentSeq);
    if (fresh.length === 0) return;
    if (fresh[0]!.seq !== this.sentSeq + 1) {
      void this.sendState({ refetch: true });
      return;
    }
    this.sentSeq = fresh[fresh.length - 1]!.seq;
    this.post({ type: 'events', events: fresh });
  }

  private async onMessage(message: FromWebview): Promise<void> {
    this.tap()?.fromWebview(this, message);
    const ref = { folder: this.folder, runId: this.runId };
    switch (message.type) {
      case 'ready':
        this.ready = true;
        await this.sendState();
        return;
      // What the webview drew and where a link landed: reports nothing here acts on.
      case 'rendered':
      case 'focused':
        return;
      case 'revealTask': {
        const node = this.services.runsTree.taskNode(this.folder, this.runId, message.taskId);
        await this.services.runsView.reveal(node, { select: true, focus: false, expand: true }).then(undefined, () => undefined);
        return;
      }
      case 'showTaskDiff':
        await runCommand('taskloom.showTaskDiff', {
          ...ref,
          taskId: message.taskId,
          ...(message.reviewSeq ? { reviewSeq: message.reviewSeq } : {}),
          ...(message.candidate ? { candidate: message.candidate } : {}),
        });
        return;
      case 'chooseCandidate':
        await runCommand('taskloom.chooseCandidate', { ...ref, taskId: message.taskId, ...(message.candidate ? { candidate: message.candidate } : {}) });
        return;
      case 'decideTask':
        if (message.action in DECISION_COMMANDS) await runCommand(DECISION_COMMANDS[message.action], { ...ref, taskId: message.taskId });
        return;
      case 'decidePlan':
        if (message.decision in PLAN_COMMANDS) await runCommand(PLAN_COMMANDS[message.decision], ref);
        return;
      case 'showPlanDocument':
        await runCommand('taskloom.showPlanDocument', ref);
        return;
      case 'deliver':
        if (message.how in DELIVERY_COMMANDS) await runCommand(DELIVERY_COMMANDS[message.how], ref);
        return;
      case 'fixPlanTask':
        if (message.fix in PLAN_TASK_FIX_COMMANDS) await runCommand(PLAN_TASK_FIX_COMMANDS[message.fix], { ...ref, taskId: message.taskId });
        return;
      case 'nextStep':
        if (message.step in NEXT_STEP_COMMANDS) await runCommand(NEXT_STEP_COMMANDS[message.step], ref);
        return;
      case 'showIntegrationDiff':
        await runCommand('taskloom.showIntegrationDiff', ref);
        return;
      case 'showGateOutput':
        await this.showGateOutput(message.seq);
        return;
      case 'restoreSnapshot':
        if (Number.isInteger(message.seq)) await runCommand('taskloom.restoreSnapshot', { ...ref, seq: message.seq });
        return;
      case 'loadDecisions':
        await this.sendRest('decisions');
        return;
      case 'loadHistories':
        await this.sendRest('histories');
        return;
      case 'loadTranscript':
        if (Array.isArray(message.calls)) await this.sendTranscript(message.calls.filter((seq) => Number.isInteger(seq)));
        return;
      case 'sendToTask':
        if (typeof message.taskId === 'string' && typeof message.text === 'string') {
          await runCommand('taskloom.sendMessageToTask', { ...ref, taskId: message.taskId, text: message.text });
        }
        return;
      case 'openPullRequest': {
        // Only a pull request the run recorded: the webview names it, it does not hand over a URL.
        const url = (await this.services.controller.state(ref.folder, ref.runId))?.pullRequests[message.key]?.url;
        if (url) await runCommand('taskloom.openPullRequestInBrowser', { ...ref, url });
        return;
      }
    }
  }

  /** The full output of a gate run, as a read-only document (agent text shown as text). */
  private async showGateOutput(seq: number): Promise<void> {
    try {
      const event = await this.services.engine.request(RunEventRequest.type, { folder: this.folder, runId: this.runId, seq });
      if (event?.type !== 'gate_result') {
        void vscode.window.showInformationMessage(`Ledger entry #${seq} has no gate output.`);
        return;
      }
      await this.services.readOnlyText.show(`Gate output #${seq}.log`, gateOutputText(event));
    } catch (error) {
      showError('show the gate output', error);
    }
  }
}

export function options(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    // The view refetches its data when shown again, so it need not be kept alive while hidden.
    retainContextWhenHidden: false,
    localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist'), vscode.Uri.joinPath(context.extensionUri, 'media')],
  };
}
