import * as vscode from 'vscode';
import type { HumanAction, RunEvent } from '../../engine/domain/events';
import type { FromWebview, RunViewFocus, RunViewPersistedState, ToWebview } from '../../protocol/webviewMessages';
import { RunEventRequest, TranscriptRequest } from '../../protocol/engineProtocol';
import { firstPage, historiesOf, type TranscriptCallLines } from '../../protocol/runViewPages';
import { showPlanDocument } from '../commands/planCommands';
import { showError } from '../connection/userErrors';
import { showReadOnlyText } from '../documents/readOnlyText';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';
import { createNonce, runViewHtml } from './runViewHtml';

export const RUN_VIEW_TYPE = 'taskloom.runView';

/** The view's buttons run the very commands of the tree's inline actions and the plan approval. */
const DECISION_COMMANDS: Record<HumanAction, string> = {
  retry: 'taskloom.retryTask',
  accept: 'taskloom.acceptTask',
  skip: 'taskloom.skipTask',
  resolve: 'taskloom.resolveTask',
  continue: 'taskloom.continueTask',
};
const PLAN_COMMANDS = { approve: 'taskloom.approvePlan', edit: 'taskloom.editPlan', cancel: 'taskloom.rejectPlan' } as const;
const DELIVERY_COMMANDS = { apply: 'taskloom.applyIntegration', pullRequest: 'taskloom.openPullRequest' } as const;

/**
 * One webview panel per run: the plan graph, the decisions ledger, the timeline and usage.
 * It gets the run's state once and then the same events the tree folds; a reload restores
 * it through the serializer (it keeps only folder + run id, and fetches the data again).
 */
export class RunViewPanel implements vscode.Disposable {
  private static readonly open = new Map<string, RunViewPanel>();
  private readonly disposables: vscode.Disposable[] = [];
  private sentDriven: boolean | undefined;
  private sentSeq = 0;
  private ready = false;
  private renderedSeq = 0;
  /** A deep link waiting for the webview to have the run. */
  private pendingFocus: RunViewFocus | undefined;
  /** What the webview last reported landing on. */
  lastFocused: (RunViewFocus & { found: boolean }) | undefined;
  /** When the panel was made, and when the webview first drew the run (for the benchmark). */
  readonly createdAt = performance.now();
  firstPaintMs: number | undefined;

  /** Opens (or reveals) the run's view; with `focus`, it lands on that ledger entry or task. */
  static show(services: Services, folder: string, runId: string, focus?: RunViewFocus): void {
    const existing = RunViewPanel.open.get(key(folder, runId));
    if (existing) {
      existing.panel.reveal(undefined, false);
      if (focus) existing.focus(focus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(RUN_VIEW_TYPE, 'Taskloom run', vscode.ViewColumn.Active, options(services.context));
    const view = new RunViewPanel(services, panel, folder, runId);
    view.pendingFocus = focus;
  }

  static registerSerializer(services: Services): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(RUN_VIEW_TYPE, {
      async deserializeWebviewPanel(panel, persisted: RunViewPersistedState | undefined) {
        if (!persisted?.folder || !persisted.runId) {
          panel.dispose();
          return;
        }
        panel.webview.options = options(services.context);
        new RunViewPanel(services, panel, persisted.folder, persisted.runId);
      },
    });
  }

  /** Every open run view (tests and the benchmark read their state). */
  static panels(): RunViewPanel[] {
    return [...RunViewPanel.open.values()];
  }

  private constructor(
    private readonly services: Services,
    readonly panel: vscode.WebviewPanel,
    readonly folder: string,
    readonly runId: string,
  ) {
    RunViewPanel.open.set(key(folder, runId), this);
    const entry = services.controller.model.run(folder, runId);
    panel.title = `Taskloom: ${plainText(entry?.summary.goal || runId, 40)}`;
    panel.iconPath = vscode.Uri.joinPath(services.context.extensionUri, 'media', 'taskloom.svg');
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      // A hidden webview is discarded; it says `ready` again when shown and gets the state anew.
      panel.onDidChangeViewState(({ webviewPanel }) => {
        if (!webviewPanel.visible) this.ready = false;
      }),
      panel.webview.onDidReceiveMessage((message: FromWebview) => void this.onMessage(message)),
      services.engine.onEvents((params) => {
        if (params.folder === folder && params.runId === runId) this.sendEvents(params.events);
      }),
      services.engine.onDidRestart(() => void this.sendState({ refetch: true })),
      { dispose: services.controller.model.onDidChange(() => this.sendDriven()) },
    );
  }

  /** Tells the view when the run stops (or starts) being driven: the engine or the window went away, or a resume. */
  private sendDriven(force = false): void {
    const driven = this.services.controller.model.run(this.folder, this.runId)?.summary.active ?? false;
    if (!this.ready || (!force && driven === this.sentDriven)) return;
    this.sentDriven = driven;
    this.post({ type: 'driven', driven });
  }

  /** The last seq the webview was sent (the in-VS-Code tests wait on it). */
  get lastSentSeq(): number {
    return this.sentSeq;
  }

  /** The seq of the last state the webview has drawn. */
  get lastRenderedSeq(): number {
    return this.renderedSeq;
  }

  /** Sent at once to a webview that has the run; otherwise after the state it is about to get. */
  private focus(focus: RunViewFocus): void {
    this.lastFocused = undefined;
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
    this.panel.title = `Taskloom: ${plainText(state.goal || this.runId, 40)}`;
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
    const ref = { folder: this.folder, runId: this.runId };
    switch (message.type) {
      case 'ready':
        this.ready = true;
        await this.sendState();
        return;
      case 'rendered':
        this.renderedSeq = message.seq;
        this.firstPaintMs ??= performance.now() - this.createdAt;
        return;
      case 'revealTask': {
        const node = this.services.runsTree.taskNode(this.folder, this.runId, message.taskId);
        await this.services.runsView.reveal(node, { select: true, focus: false, expand: true }).then(undefined, () => undefined);
        return;
      }
      case 'focused':
        this.lastFocused = { found: message.found, ...(message.taskId !== undefined ? { taskId: message.taskId } : {}), ...(message.seq !== undefined ? { seq: message.seq } : {}) };
        return;
      case 'showTaskDiff':
        await vscode.commands.executeCommand('taskloom.showTaskDiff', { ...ref, taskId: message.taskId, ...(message.reviewSeq ? { reviewSeq: message.reviewSeq } : {}) });
        return;
      case 'decideTask':
        if (message.action in DECISION_COMMANDS) await vscode.commands.executeCommand(DECISION_COMMANDS[message.action], { ...ref, taskId: message.taskId });
        return;
      case 'decidePlan':
        if (message.decision in PLAN_COMMANDS) await vscode.commands.executeCommand(PLAN_COMMANDS[message.decision], ref);
        return;
      case 'showPlanDocument':
        await showPlanDocument(ref);
        return;
      case 'deliver':
        if (message.how in DELIVERY_COMMANDS) await vscode.commands.executeCommand(DELIVERY_COMMANDS[message.how], ref);
        return;
      case 'showIntegrationDiff':
        await vscode.commands.executeCommand('taskloom.showIntegrationDiff', ref);
        return;
      case 'showGateOutput':
        await this.showGateOutput(message.seq);
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
      case 'openPullRequest': {
        // Only a pull request the run recorded: the webview names it, it does not hand over a URL.
        const url = (await this.services.controller.state(ref.folder, ref.runId))?.pullRequests[message.key]?.url;
        if (url) await vscode.commands.executeCommand('taskloom.openPullRequestInBrowser', { ...ref, url });
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
      const where = event.taskId ? `task ${event.taskId}, attempt ${event.attempt}` : 'integration';
      const text = [
        `Gate ${event.passed ? 'passed' : 'failed'} (${where}) at ${event.at}`,
        ...event.commands.flatMap((c) => ['', `$ ${c.command}  → ${c.timedOut ? 'timed out' : `exit ${c.exitCode}`} in ${c.durationMs} ms`, c.output]),
      ].join('\n');
      await showReadOnlyText(`Gate output #${seq}.log`, text);
    } catch (error) {
      showError('show the gate output', error);
    }
  }

  dispose(): void {
    RunViewPanel.open.delete(key(this.folder, this.runId));
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}

const key = (folder: string, runId: string) => `${folder}\u0000${runId}`;

function options(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    // The view refetches its data when shown again, so it need not be kept alive while hidden.
    retainContextWhenHidden: false,
    localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist'), vscode.Uri.joinPath(context.extensionUri, 'media')],
  };
}
