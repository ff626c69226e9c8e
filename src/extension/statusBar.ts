import * as vscode from 'vscode';
import type { CommandId } from './commandIds';
import type { EngineClient } from './connection/engineClient';
import { Disposable, toDisposable } from './disposable';
import type { RunsController } from './runsController';

/** How long a stopped engine may take to come back by itself before the status bar says it is stopped. */
const ENGINE_RESTART_GRACE_MS = 5_000;
import type { RunEntry } from './state/runsModel';
import { runStatusWords } from './state/runStatusWords';
import { commandCall } from './runCommand';
import { isRunOver } from '../engine/domain/runState';
import { resumeOutlookOf } from './state/resumable';

/**
 * The status bar item: the run being driven (or else the newest unfinished one) as merged/total,
 * who needs you and the cost (state/runStatusWords.ts); a click shows the run. Hidden when there
 * is nothing to show.
 */
export class RunStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('taskloom.run', vscode.StatusBarAlignment.Left, 50));
  /** The engine process is gone and nothing has started it again: that outranks any run. */
  private engineStopped = false;
  private stopCheck: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly controller: RunsController,
    engine: Pick<EngineClient, 'onDidStop' | 'onDidRestart' | 'isRunning'>,
  ) {
    super();
    this.item.name = 'Taskloom Run';
    this._register(toDisposable(controller.model.onDidChange(() => this.update())));
    this._register(toDisposable(() => clearTimeout(this.stopCheck)));
    this._register(
      engine.onDidStop(() => {
        // The client reports Stopped before it restarts: only a stop it stays in counts.
        clearTimeout(this.stopCheck);
        this.stopCheck = setTimeout(() => {
          this.engineStopped = !engine.isRunning;
          this.update();
        }, ENGINE_RESTART_GRACE_MS);
      }),
    );
    this._register(
      engine.onDidRestart(() => {
        this.engineStopped = false;
        this.update();
      }),
    );
  }

  /** A run that failed to plan, or stopped before its plan was approved, is started again, not current: it is not shown. */
  private current(): RunEntry | undefined {
    const runs = this.controller.model.allRuns();
    return runs.find((e) => e.summary.active) ?? runs.find((e) => !isRunOver(e.summary.status) && resumeOutlookOf(e)?.kind !== 'startAgain');
  }

  update(): void {
    if (this.engineStopped) {
      this.item.text = '$(debug-disconnect) Taskloom engine stopped';
      this.item.tooltip = 'The engine stopped and was not restarted; your runs are saved. Click to restart it.';
      this.item.command = 'taskloom.restartEngine' satisfies CommandId;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      this.item.show();
      return;
    }
    const entry = this.current();
    if (!entry) {
      this.item.hide();
      return;
    }
    const words = runStatusWords(entry);
    this.item.text = words.text;
    this.item.tooltip = words.tooltip;
    this.item.command = commandCall('taskloom.showRun', 'Show Run', { folder: entry.folder, runId: entry.summary.runId });
    this.item.backgroundColor = words.attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}
