import * as vscode from 'vscode';
import type { PullRequestRecord, RunState } from '../engine/domain/runState';
import { checksWords } from '../engine/text/pullRequestWords';
import { Disposable, toDisposable } from './disposable';
import type { RunsController } from './runsController';
import type { ModelChange } from './state/runsModel';
import { plainText } from './tree/presentation';

/** What is news about one pull request: the red stretch it was escalated in, the time a watch handed it to you. */
const newsOf = (pr: PullRequestRecord): string[] => [
  ...(pr.red?.escalated ? [`escalated ${pr.red.headSha} ${pr.red.since}`] : []),
  ...(pr.watch?.outcome === 'needs_human' ? [`needs you ${pr.watch.at}`] : []),
];

/**
 * A notification when a watched pull request is escalated (red too long with no progress:
 * `pull_request_escalated`, once per red stretch) and, in a stack, when one of its pull requests
 * comes to need you while the watch goes on with the others; a run's single pull request that needs
 * you is told when its watch ends (pullRequestCommands.ts). What was already so when the window
 * first saw the run is not news. Read from the run's state as its events arrive, so the editor and
 * the CLI's watch are told alike.
 */
export class PullRequestNotices extends Disposable {
  /** Per run: the news already seen. */
  private readonly seen = new Map<string, Set<string>>();

  constructor(private readonly controller: Pick<RunsController, 'model'>) {
    super();
    this._register(toDisposable(controller.model.onDidChange((change) => this.note(change))));
  }

  private note(change: ModelChange): void {
    for (const { folder, runId } of change.runs) {
      const state = this.controller.model.run(folder, runId)?.state;
      if (!state) continue;
      const key = `${folder}\u0000${runId}`;
      const before = this.seen.get(key);
      const now = new Set<string>();
      for (const pr of Object.values(state.pullRequests)) {
        for (const news of newsOf(pr)) {
          now.add(`${pr.number} ${news}`);
          if (before && !before.has(`${pr.number} ${news}`)) void this.tell(state, pr, news.startsWith('escalated'));
        }
      }
      this.seen.set(key, now);
    }
  }

  private async tell(state: RunState, pr: PullRequestRecord, escalated: boolean): Promise<void> {
    if (!escalated && Object.keys(state.pullRequests).length < 2) return;
    const what = escalated
      ? `has been red since ${new Date(pr.red!.since).toLocaleTimeString()} with no progress (${pr.red!.red === 'conflict' ? 'it conflicts with its base' : checksWords(pr.observed?.checks ?? [])})`
      : `needs you: ${plainText(pr.watch!.reason, 200)}; the other pull requests are still watched`;
    const choice = await vscode.window.showWarningMessage(`Taskloom: pull request #${pr.number} ${what}.`, 'Open in Browser');
    if (choice === 'Open in Browser') await vscode.env.openExternal(vscode.Uri.parse(pr.url));
  }
}
