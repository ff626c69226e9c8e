import * as vscode from 'vscode';
import type { RunsController } from './runsController';
import type { RunEntry } from './state/runsModel';
import { formatCost, phaseWords, plainText, RUN_LOOK, runPhase } from './tree/presentation';

/**
 * The status bar item: the run being driven (or else the newest unfinished one) as
 * green/total and cost; a click shows the run. Hidden when there is nothing to show.
 */
export class RunStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('taskloom.run', vscode.StatusBarAlignment.Left, 50);
  private readonly unsubscribe: () => void;

  constructor(private readonly controller: RunsController) {
    this.item.name = 'Taskloom Run';
    this.unsubscribe = controller.model.onDidChange(() => this.update());
  }

  private current(): RunEntry | undefined {
    const runs = this.controller.model.allRuns();
    return runs.find((e) => e.summary.active) ?? runs.find((e) => e.summary.status !== 'completed' && e.summary.status !== 'cancelled');
  }

  update(): void {
    const entry = this.current();
    if (!entry) {
      this.item.hide();
      return;
    }
    const { summary, state } = entry;
    const phase = runPhase(summary, state?.plan.tasks.length);
    const icon = RUN_LOOK[phase].icon;
    const cost = state ? ` · ${formatCost(state.usage.total.costUsd)}` : '';
    this.item.text = `$(${icon}) Taskloom ${summary.done}/${summary.total}${cost}`;
    this.item.tooltip = `${plainText(summary.goal, 120)}\n${phaseWords(phase)}: ${summary.done} of ${summary.total} tasks done (merged or skipped). Click to show the run.`;
    this.item.command = { command: 'taskloom.showRun', title: 'Show Run', arguments: [{ folder: entry.folder, runId: summary.runId }] };
    this.item.backgroundColor = phase === 'needs_human' || phase === 'failed' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.unsubscribe();
    this.item.dispose();
  }
}
