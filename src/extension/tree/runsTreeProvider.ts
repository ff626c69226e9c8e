import * as vscode from 'vscode';
import { isRunOver, type AttemptRecord, type RunState, type TaskView, type TransitionRecord } from '../../engine/domain/runState';
import { Disposable, toDisposable } from '../disposable';
import { commandCall } from '../runCommand';
import type { RunsController } from '../runsController';
import type { ModelChange, RunEntry } from '../state/runsModel';
import { startAgainOf } from '../state/resumable';
import { pullRequestContextValue, runContextValue, taskContextValue } from './contextValues';
import {
  formatCost,
  INTERRUPTED_LOOK,
  formatDuration,
  phaseWords,
  plainText,
  RUN_LOOK,
  runPhase,
  runRow,
  runWhen,
  TASK_LOOK,
  taskDescription,
  taskLook,
  type Look,
  openTranscript,
  PULL_REQUEST_LOOK,
  transcriptLineWords,
} from './presentation';
import { pullRequestSummaries, pullRequestWords } from '../../engine/report/traceReport';
import { attemptOutcomeWords, isInterruptedStep, isNotStartedByCancel, TASK_STATE_WORDS, taskStateWords } from '../../engine/domain/stateWords';
import { taskTimings } from '../../engine/domain/taskTimings';
import { timingWords } from '../../engine/report/timingWords';
import { countSentence } from '../../engine/domain/taskCounts';
import { formatBytes } from '../../engine/text/formatBytes';
import { goalHeadline } from '../../engine/text/clip';

export type RunsNode =
  | { kind: 'folder'; id: string; folder: string }
  | { kind: 'run'; id: string; folder: string; runId: string }
  | { kind: 'pullRequest'; id: string; folder: string; runId: string; key: string }
  | { kind: 'task'; id: string; folder: string; runId: string; taskId: string }
  | { kind: 'attempt'; id: string; folder: string; runId: string; taskId: string; index: number }
  | { kind: 'transitions'; id: string; folder: string; runId: string; taskId: string }
  | { kind: 'transition'; id: string; folder: string; runId: string; taskId: string; index: number };

/**
 * Just over VS Code's 200 ms debounce of tree changes: a fire this long after the previous one
 * finds no debounce pending and goes through at once (see scheduleFire).
 */
export const MIN_FIRE_INTERVAL_MS = 210;
/** However busy the window, a changed row is fired within this. */
const MAX_FIRE_DELAY_MS = 1_000;

const themeIcon = (look: Look) => new vscode.ThemeIcon(look.icon, look.color ? new vscode.ThemeColor(look.color) : undefined);

/**
 * The Runs tree: folder (multi-root only) → run → task → attempts and transitions. Nodes are
 * kept by id so an event refreshes exactly the rows it touched, not the whole tree.
 */
export class RunsTreeProvider extends Disposable implements vscode.TreeDataProvider<RunsNode> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<RunsNode | RunsNode[] | undefined>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly nodes = new Map<string, RunsNode>();

  constructor(private readonly controller: RunsController) {
    super();
    this._register(toDisposable(controller.model.onDidChange((change) => this.refresh(change))));
    this._register(toDisposable(() => clearTimeout(this.fireTimer)));
  }

  private node<N extends RunsNode>(fresh: N): N {
    const existing = this.nodes.get(fresh.id);
    if (existing) return existing as N;
    this.nodes.set(fresh.id, fresh);
    return fresh;
  }

  runNode(folder: string, runId: string): Extract<RunsNode, { kind: 'run' }> {
    return this.node({ kind: 'run' as const, id: `run:${folder}:${runId}`, folder, runId });
  }

  taskNode(folder: string, runId: string, taskId: string): RunsNode {
    return this.node({ kind: 'task', id: `task:${folder}:${runId}:${taskId}`, folder, runId, taskId });
  }

  /** Fires the rows a model change touched: a run row, its changed task rows, or a folder when runs came and went. */
  refresh(change: ModelChange): void {
    // Runs came and went, or a new plan changed a run's tasks: rows that left the tree leave the cache.
    if (change.folders.size > 0 || change.runs.some((run) => run.structure)) this.pruneNodes();
    if (change.folders.size > 0) {
      // The whole tree is read again, queued rows with it; and the debounce starts anew (see scheduleFire).
      clearTimeout(this.fireTimer);
      this.fireTimer = undefined;
      this.queued.clear();
      this.lastFire = performance.now();
      this.changeEmitter.fire(undefined);
      return;
    }
    const nodes: RunsNode[] = [];
    for (const run of change.runs) {
      const runNode = this.runNode(run.folder, run.runId);
      // Refreshing a run row re-reads all its task rows, so it is fired only when the row's
      // own text changed or a new plan changed its children; otherwise just the tasks touched.
      if (run.structure || this.runRowChanged(runNode)) {
        nodes.push(runNode);
        if (run.structure) continue;
      }
      for (const taskId of run.tasks) nodes.push(this.taskNode(run.folder, run.runId, taskId));
    }
    for (const node of nodes) this.queued.set(node.id, node);
    this.scheduleFire();
  }

  private readonly shownRunRows = new Map<string, string>();

  private pruneNodes(): void {
    for (const [id, node] of this.nodes) {
      if (this.inTree(node)) continue;
      this.nodes.delete(id);
      this.shownRunRows.delete(id);
      this.firedAt.delete(id);
      this.queued.delete(id);
    }
  }

  /** Whether the model still has what the node shows (a run whose state is not loaded yet keeps its rows). */
  private inTree(node: RunsNode): boolean {
    if (node.kind === 'folder') return this.controller.folders().includes(node.folder);
    const entry = this.controller.model.run(node.folder, node.runId);
    if (!entry) return false;
    const state = entry.state;
    if (node.kind === 'run' || !state) return true;
    if (node.kind === 'pullRequest') return node.key in state.pullRequests;
    const task = state.tasks[node.taskId];
    switch (node.kind) {
      case 'task':
        return task !== undefined;
      case 'attempt':
        return node.index < (task?.attempts.length ?? 0);
      case 'transitions':
        return (task?.transitions.length ?? 0) > 0;
      case 'transition':
        return node.index < (task?.transitions.length ?? 0);
    }
  }

  // Pacing. VS Code's extension host debounces tree changes for 200 ms with a leading edge
  // (extHostTreeViews: Event.debounce(…, 200, true)): a change when none is pending goes to the
  // window at once; a change within 200 ms of the previous one restarts the wait, so changes
  // every few ms would hold a busy run's rows back until the run paused. So rows are gathered
  // and fired at once when the last fire is MIN_FIRE_INTERVAL_MS old (the debounce has lapsed:
  // an event of a run that is not busy reaches its row in a few ms), else exactly that long
  // after the last fire. And when VS Code reads fired rows late (its queue is long) the next
  // fire waits about as long after the last, so a busy window gets fewer, larger refreshes.
  private readonly queued = new Map<string, RunsNode>();
  private readonly firedAt = new Map<string, number>();
  private readLagMs = 0;
  private lastFire = -Infinity;
  private fireTimer: ReturnType<typeof setTimeout> | undefined;

  private scheduleFire(): void {
    if (this.fireTimer || this.queued.size === 0) return;
    const since = performance.now() - this.lastFire;
    const wait = Math.min(MAX_FIRE_DELAY_MS, Math.max(MIN_FIRE_INTERVAL_MS, this.readLagMs) - since);
    if (wait <= 0) this.fireQueued();
    else this.fireTimer = setTimeout(() => this.fireQueued(), wait);
  }

  private fireQueued(): void {
    this.fireTimer = undefined;
    const nodes = [...this.queued.values()];
    this.queued.clear();
    const now = performance.now();
    this.lastFire = now;
    for (const node of nodes) this.firedAt.set(node.id, now);
    this.changeEmitter.fire(nodes);
  }

  private noteRead(node: RunsNode): void {
    const firedAt = this.firedAt.get(node.id);
    if (firedAt === undefined) return;
    this.firedAt.delete(node.id);
    this.readLagMs = 0.7 * this.readLagMs + 0.3 * (performance.now() - firedAt);
  }

  private runRowChanged(node: Extract<RunsNode, { kind: 'run' }>): boolean {
    const item = this.buildRunItem(node);
    const text = `${String(item.label)}|${String(item.description)}|${item.contextValue}`;
    if (this.shownRunRows.get(node.id) === text) return false;
    this.shownRunRows.set(node.id, text);
    return true;
  }

  getParent(node: RunsNode): RunsNode | undefined {
    switch (node.kind) {
      case 'folder':
        return undefined;
      case 'run':
        return this.multiRoot() ? this.node({ kind: 'folder', id: `folder:${node.folder}`, folder: node.folder }) : undefined;
      case 'task':
      case 'pullRequest':
        return this.runNode(node.folder, node.runId);
      case 'attempt':
      case 'transitions':
        return this.taskNode(node.folder, node.runId, node.taskId);
      case 'transition':
        return this.transitionsNode(node);
    }
  }

  private transitionsNode(of: { folder: string; runId: string; taskId: string }): RunsNode {
    const base = { folder: of.folder, runId: of.runId, taskId: of.taskId };
    return this.node({ ...base, kind: 'transitions', id: `${this.taskNode(of.folder, of.runId, of.taskId).id}:transitions` });
  }

  private multiRoot(): boolean {
    return this.controller.folders().length > 1;
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (!node) {
      if (this.multiRoot()) {
        return this.controller.folders().map((folder) => this.node({ kind: 'folder', id: `folder:${folder}`, folder }));
      }
      const [folder] = this.controller.folders();
      return folder ? this.runsOf(folder) : [];
    }
    switch (node.kind) {
      case 'folder':
        return this.runsOf(node.folder);
      case 'run': {
        const state = await this.controller.state(node.folder, node.runId);
        const pullRequests = Object.keys(state?.pullRequests ?? {}).map((key) =>
          this.node({ kind: 'pullRequest' as const, id: `pr:${node.folder}:${node.runId}:${key}`, folder: node.folder, runId: node.runId, key }),
        );
        return [...pullRequests, ...(state?.taskOrder ?? []).map((taskId) => this.taskNode(node.folder, node.runId, taskId))];
      }
      case 'task': {
        const task = this.task(node);
        if (!task) return [];
        const base = { folder: node.folder, runId: node.runId, taskId: node.taskId };
        const attempts = task.attempts.map((_, index) =>
          this.node({ ...base, kind: 'attempt', id: `${node.id}:attempt:${index}`, index }),
        );
        const transitions = task.transitions.length ? [this.transitionsNode(base)] : [];
        return [...attempts, ...transitions];
      }
      case 'transitions': {
        const task = this.task(node);
        return (task?.transitions ?? []).map((_, index) =>
          this.node({ kind: 'transition', id: `${node.id}:${index}`, folder: node.folder, runId: node.runId, taskId: node.taskId, index }),
        );
      }
      default:
        return [];
    }
  }

  private runsOf(folder: string): RunsNode[] {
    return this.controller.model.runs(folder).map((entry) => this.runNode(folder, entry.summary.runId));
  }

  private task(node: { folder: string; runId: string; taskId: string }): TaskView | undefined {
    return this.controller.model.run(node.folder, node.runId)?.state?.tasks[node.taskId];
  }

  /** Tooltips are built when one is hovered, not with every row an event redraws. */
  resolveTreeItem(item: vscode.TreeItem, node: RunsNode): vscode.TreeItem {
    if (node.kind === 'task' && item.tooltip === undefined) item.tooltip = this.taskTooltip(node);
    return item;
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    this.noteRead(node);
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(vscode.workspace.asRelativePath(node.folder, true) || node.folder, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.id = node.id;
        return item;
      }
      case 'run':
        return this.runItem(node);
      case 'task':
        return this.taskItem(node);
      case 'pullRequest':
        return this.pullRequestItem(node);
      case 'attempt':
        return this.attemptItem(node, this.task(node)?.attempts[node.index], this.controller.model.run(node.folder, node.runId)?.summary.active ?? false);
      case 'transitions': {
        const count = this.task(node)?.transitions.length ?? 0;
        const item = new vscode.TreeItem('Transitions', vscode.TreeItemCollapsibleState.Collapsed);
        item.description = String(count);
        item.iconPath = new vscode.ThemeIcon('history');
        item.id = node.id;
        return item;
      }
      case 'transition':
        return this.transitionItem(node, this.task(node)?.transitions[node.index]);
    }
  }

  private runItem(node: Extract<RunsNode, { kind: 'run' }>): vscode.TreeItem {
    const item = this.buildRunItem(node);
    this.shownRunRows.set(node.id, `${String(item.label)}|${String(item.description)}|${item.contextValue}`);
    return item;
  }

  private buildRunItem(node: Extract<RunsNode, { kind: 'run' }>): vscode.TreeItem {
    const entry = this.controller.model.run(node.folder, node.runId);
    const item = new vscode.TreeItem(plainText(goalHeadline(entry?.summary.goal ?? '') || node.runId, 120), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    if (!entry) return item;
    const { summary, state } = entry;
    const phase = runPhase(summary, state);
    item.iconPath = themeIcon(RUN_LOOK[phase]);
    // No cost or date here: the cost changes with every agent call, and refreshing a run row
    // re-reads all its task rows; both are in the tooltip, beside the goal in full.
    const row = runRow(summary, phase);
    item.label = row.label;
    item.description = row.description;
    item.contextValue = runContextValue(this.controller.facts(entry), startAgainOf(entry));
    item.tooltip = runTooltip(entry, phaseWords(phase));
    if (this.controller.model.runs(node.folder)[0]?.summary.runId === node.runId && phase !== 'completed') {
      item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
    }
    return item;
  }

  private taskItem(node: Extract<RunsNode, { kind: 'task' }>): vscode.TreeItem {
    const entry = this.controller.model.run(node.folder, node.runId);
    const task = entry?.state?.tasks[node.taskId];
    const item = new vscode.TreeItem(node.taskId, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    if (!entry?.state || !task) return item;
    item.label = `${node.taskId}: ${plainText(task.title, 100)}`;
    // A run no engine drives is stopped: its open steps are interrupted, do not spin and do not grow.
    const driven = entry.summary.active;
    const run = { driven, status: entry.state.status };
    item.iconPath = themeIcon(taskLook(task.state, run));
    const timings = taskTimings(entry.state, task, { now: Date.now(), live: driven });
    item.description = taskDescription(task, timings, run);
    // While its agent works, the row ends with what the agent did last.
    const newest = openTranscript(task, driven)?.last;
    if (newest) item.description += ` — ${transcriptLineWords(newest, 80)}`;
    item.contextValue = taskContextValue(task);
    if (task.attempts.length === 0 && task.transitions.length === 0) item.collapsibleState = vscode.TreeItemCollapsibleState.None;
    return item;
  }

  private taskTooltip(node: Extract<RunsNode, { kind: 'task' }>): vscode.MarkdownString | undefined {
    const entry = this.controller.model.run(node.folder, node.runId);
    const task = entry?.state?.tasks[node.taskId];
    if (!entry?.state || !task) return undefined;
    const driven = entry.summary.active;
    const timings = taskTimings(entry.state, task, { now: Date.now(), live: driven });
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown('**').appendText(`${task.id}: ${plainText(task.title)}`).appendMarkdown('**\n\n');
    const run = { driven, status: entry.state.status };
    // A task its cancelled run never started says so in its words already.
    const reason = task.lastReason || (isNotStartedByCancel(task.state, run) ? '' : 'not started');
    tip.appendText(`${taskStateWords(task.state, run)}${reason ? ` — ${plainText(reason)}` : ''}`);
    if (isInterruptedStep(task.state, driven)) tip.appendMarkdown('\n\n').appendText('Nothing runs it now: Resume starts this step again.');
    const open = openTranscript(task, driven);
    if (open?.last) {
      const what = open.purpose === 'resolve' ? 'resolving' : open.purpose === 'fix' ? 'fixing' : `${open.role === 'critic' ? 'review' : 'attempt'} ${open.attempt}`;
      tip.appendMarkdown('\n\n').appendText(`Now (${open.role}, ${what}, ${formatDuration(open.last.ms)} in): ${transcriptLineWords(open.last, 500)}`);
    }
    if (task.dependsOn.length) tip.appendMarkdown('\n\n').appendText(`After: ${task.dependsOn.join(', ')}`);
    if (task.branch) tip.appendMarkdown('\n\n').appendText(`Branch: ${task.branch}`);
    if (task.transitions.length) tip.appendMarkdown('\n\n').appendText(timingWords(timings, formatDuration));
    return tip;
  }

  private pullRequestItem(node: Extract<RunsNode, { kind: 'pullRequest' }>): vscode.TreeItem {
    const state = this.controller.model.run(node.folder, node.runId)?.state;
    const pr = state ? pullRequestSummaries(state).find((p) => (p.taskId ?? '') === node.key) : undefined;
    const item = new vscode.TreeItem('Pull request', vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    if (!pr) return item;
    // Short, so the row's words ("checks pass; approved; …") show at the sidebar's default width; the tooltip names it in full.
    item.label = `PR #${pr.number}${pr.taskId ? ` (${pr.taskId})` : ''}`;
    const needsYou = pr.watch?.outcome === 'needs_human';
    item.description = needsYou ? `needs you · ${pullRequestWords(pr)}` : pullRequestWords(pr);
    const look = PULL_REQUEST_LOOK[needsYou ? 'needsYou' : (pr.state ?? 'open')];
    item.iconPath = themeIcon(look);
    item.contextValue = pullRequestContextValue(pr.state);
    item.command = commandCall('taskloom.openPullRequestInBrowser', 'Open Pull Request in Browser', { folder: node.folder, runId: node.runId, url: pr.url });
    const tip = new vscode.MarkdownString();
    tip.appendText(`Pull request #${pr.number}: ${pullRequestWords(pr)}\n${pr.url}\n${pr.head} → ${pr.base}`);
    if (pr.watch) tip.appendMarkdown('\n\n').appendText(`Last watch: ${pr.watch.outcome === 'needs_human' ? 'needs you' : pr.watch.outcome} — ${plainText(pr.watch.reason, 500)}`);
    item.tooltip = tip;
    return item;
  }

  private attemptItem(node: RunsNode, attempt: AttemptRecord | undefined, driven: boolean): vscode.TreeItem {
    const item = new vscode.TreeItem(`Attempt ${attempt?.number ?? '?'}`, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    if (!attempt) return item;
    const open = !attempt.endedAt;
    item.description = attempt.endedAt
      ? `${attempt.outcome ? plainText(attemptOutcomeWords(attempt.outcome), 80) : 'ended'} · ${formatDuration(Date.parse(attempt.endedAt) - Date.parse(attempt.startedAt))}`
      : driven
        ? 'in progress'
        : 'interrupted — Resume starts it again';
    item.iconPath = open && !driven ? themeIcon(INTERRUPTED_LOOK) : new vscode.ThemeIcon(open ? 'loading~spin' : 'debug-stackframe-dot');
    item.tooltip = `${new Date(attempt.startedAt).toLocaleString()}${attempt.commit ? `\ncommit ${attempt.commit.slice(0, 10)}` : ''}`;
    return item;
  }

  private transitionItem(node: RunsNode, t: TransitionRecord | undefined): vscode.TreeItem {
    const item = new vscode.TreeItem(t ? `${TASK_STATE_WORDS[t.from]} → ${TASK_STATE_WORDS[t.to]}` : '?', vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    if (!t) return item;
    item.description = `${new Date(t.at).toLocaleTimeString()} · ${plainText(t.reason, 120)}`;
    item.iconPath = themeIcon(TASK_LOOK[t.to]);
    item.tooltip = `${t.event} (#${t.seq})\n${plainText(t.reason, 2000)}`;
    return item;
  }
}

function runTooltip(entry: RunEntry, phase: string): vscode.MarkdownString {
  const { summary, state } = entry;
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown('**').appendText(plainText(summary.goal || summary.runId)).appendMarkdown('**\n\n');
  tip.appendText(`${summary.runId} — ${phase}, ${countSentence(summary)}; started ${runWhen(summary.createdAt)}`);
  if (summary.diskBytes !== undefined) {
    const gc = summary.diskBytes > 0 && isRunOver(summary.status) ? ' (Discard Run frees it, with the run)' : '';
    tip.appendMarkdown('\n\n').appendText(`Worktrees on disk: ${formatBytes(summary.diskBytes)}${gc}`);
  }
  if (state) appendStateLines(tip, state);
  return tip;
}

function appendStateLines(tip: vscode.MarkdownString, state: RunState): void {
  tip.appendMarkdown('\n\n').appendText(`From ${state.baseRef} @ ${state.baseCommit.slice(0, 10)} · ${formatCost(state.usage.total.costUsd)}`);
  const reason = state.pausedReason ?? state.finishedSummary;
  if (reason) tip.appendMarkdown('\n\n').appendText(plainText(reason, 500));
}
