import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../disposable';
import { commandCall } from '../runCommand';
import type { RunsController } from '../runsController';
import { attentionItems, type AttentionItem } from '../state/attention';
import { startAgainOf } from '../state/resumable';
import { attentionContextValue, runContextValue, taskContextValue } from './contextValues';
import { plainText, runWhen } from './presentation';
import { goalHeadline } from '../../engine/text/clip';

const ICONS: Record<AttentionItem['kind'], string> = {
  task: 'warning',
  planApproval: 'checklist',
  paused: 'debug-pause',
  conflict: 'git-merge',
  stopped: 'debug-disconnect',
  planFailed: 'error',
};

/**
 * Needs You: every task waiting for a decision, plan waiting for approval, paused run (quota
 * or budget) and merge conflict, across runs and folders. Small by nature, so rebuilt whole.
 */
export class NeedsYouTreeProvider extends Disposable implements vscode.TreeDataProvider<AttentionItem> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly countEmitter = this._register(new vscode.EventEmitter<number>());
  readonly onDidChangeCount = this.countEmitter.event;
  private items: AttentionItem[] = [];

  constructor(private readonly controller: RunsController) {
    super();
    this._register(toDisposable(controller.model.onDidChange(() => this.rebuild())));
  }

  get count(): number {
    return this.items.length;
  }

  private rebuild(): void {
    const next = this.controller.model.allRuns().flatMap((entry) => attentionItems(entry.folder, entry.summary, entry.state));
    const changed = JSON.stringify(next) !== JSON.stringify(this.items);
    this.items = next;
    if (!changed) return;
    this.changeEmitter.fire();
    this.countEmitter.fire(next.length);
  }

  getChildren(item?: AttentionItem): AttentionItem[] {
    return item ? [] : this.items;
  }

  getTreeItem(item: AttentionItem): vscode.TreeItem {
    const tree = new vscode.TreeItem(plainText(item.label, 120), vscode.TreeItemCollapsibleState.None);
    // Which run it belongs to: two runs of one goal differ by when they started.
    const summary = this.controller.model.run(item.folder, item.runId)?.summary;
    const run = summary ? `${plainText(goalHeadline(summary.goal) || summary.runId, 32)}, ${runWhen(summary.createdAt)}` : item.runId;
    tree.description = 'taskId' in item ? `${plainText(item.reason, 100)} · ${run}` : plainText(item.reason, 160);
    tree.tooltip = new vscode.MarkdownString()
      .appendText(`Run "${plainText(summary?.goal || item.runId, 200)}" (${item.runId}), started ${summary ? new Date(summary.createdAt).toLocaleString() : '?'}`)
      .appendMarkdown('\n\n')
      .appendText(plainText(item.reason, 2000));
    tree.iconPath = new vscode.ThemeIcon(ICONS[item.kind], new vscode.ThemeColor(item.kind === 'task' ? 'errorForeground' : 'charts.yellow'));
    tree.id = `${item.kind}:${item.folder}:${item.runId}:${'taskId' in item ? item.taskId : ''}`;
    // A row has the menus of its row in Runs: what its task or run allows now (package.json matches the context value).
    const entry = this.controller.model.run(item.folder, item.runId);
    const task = 'taskId' in item ? entry?.state?.tasks[item.taskId] : undefined;
    if (task) tree.contextValue = taskContextValue(task);
    else if (entry && !('taskId' in item)) tree.contextValue = runContextValue(this.controller.facts(entry), startAgainOf(entry));
    else tree.contextValue = attentionContextValue(item.kind);
    tree.command =
      item.kind === 'planApproval'
        ? commandCall('taskloom.reviewPlan', 'Review Plan', item)
        : commandCall('taskloom.showRun', 'Show Run', item);
    return tree;
  }
}
