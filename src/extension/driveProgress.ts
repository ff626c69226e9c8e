import * as vscode from 'vscode';
import { CancelRequest } from '../protocol/engineProtocol';
import type { CommandId } from './commandIds';
import type { RunRef } from './targets/runRef';
import { showError } from './connection/userErrors';
import type { EngineClient } from './connection/engineClient';
import type { RunsController } from './runsController';
import { plainText } from './tree/presentation';
import { runCommand } from './runCommand';
import { RUN_STATUS_WORDS, TASK_STATE_WORDS } from '../engine/domain/stateWords';
import { countWords } from '../engine/domain/taskCounts';
import { allowedRunActions, type RunAction } from '../engine/domain/runActions';
import { goalHeadline } from '../engine/text/clip';

/**
 * A progress notification for a run the engine is driving: merged/total and what is happening,
 * with a Cancel button that cancels the engine's work (agents and gates are stopped). Ends
 * when the engine stops working on the run. One per run at a time.
 */
export class DriveProgress {
  private readonly shown = new Set<string>();

  constructor(
    private readonly controller: RunsController,
    private readonly engine: Pick<EngineClient, 'request'>,
  ) {}

  show(ref: RunRef): void {
    const key = `${ref.folder}\u0000${ref.runId}`;
    if (this.shown.has(key)) return;
    this.shown.add(key);
    const { controller, engine, shown } = this;
    const { model } = controller;
    void vscode.window
      .withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Taskloom', cancellable: true },
        (progress, token) =>
          new Promise<void>((resolve) => {
            let lastMessage = '';
            const update = () => {
              const entry = model.run(ref.folder, ref.runId);
              if (!entry || !entry.summary.active) {
                stop();
                return;
              }
              const state = entry.state;
              const busy = state?.taskOrder.map((id) => state.tasks[id]!).find((t) => ['BUILDING', 'GATING', 'CRITIC_REVIEWING'].includes(t.state));
              const what = state?.status === 'integrating' ? 'merging green work' : busy ? `${busy.id}: ${TASK_STATE_WORDS[busy.state]}` : RUN_STATUS_WORDS[entry.summary.status];
              const message = `${countWords(entry.summary)} — ${plainText(what, 80)}`;
              if (message !== lastMessage) progress.report({ message });
              lastMessage = message;
            };
            const unsubscribe = model.onDidChange(update);
            const cancel = token.onCancellationRequested(() => {
              engine.request(CancelRequest.type, ref).catch((error: unknown) => showError('cancel the run', error));
            });
            function stop() {
              unsubscribe();
              cancel.dispose();
              shown.delete(key);
              resolve();
              notifyRunEnded(controller, ref);
            }
            update();
          }),
      );
  }
}

/**
 * When the progress toast goes, say how the run ended, with the next step a button away: the
 * toast vanishing alone reads as nothing (or everything) having happened. Only an end that stays
 * true is a toast (completed, cancelled, failed): a toast cannot be closed once shown, so a run
 * that stopped for a person or paused says so where the news updates as they act — the status
 * bar item (who needs you, state/runStatusWords.ts) and the Needs You view — and never leaves an
 * outdated "stopped" beside the next one. A run the engine merely stopped driving (it died) is
 * told by the engine-restart notice instead.
 */
function notifyRunEnded(controller: RunsController, ref: RunRef): void {
  const entry = controller.model.run(ref.folder, ref.runId);
  if (!entry || entry.summary.active) return;
  const { summary, state } = entry;
  const goal = `"${plainText(goalHeadline(summary.goal), 60)}"`;
  const counts = countWords(summary);
  const open = (choice: string | undefined) => {
    const command = choice && NEXT_STEPS[choice];
    if (command) void runCommand(command, ref);
  };
  switch (summary.status) {
    case 'completed': {
      // Only the next steps that would work (a pull request needs a remote); each is checked again when pressed.
      const allowed = allowedRunActions(controller.facts(entry));
      const steps = (['Review Diff', 'Apply…', 'Open Pull Request'] as const).filter((step) => allowed.includes(STEP_ACTION[step]));
      void vscode.window.showInformationMessage(`Taskloom: ${goal} completed — ${counts}, integration gate passed.`, ...steps).then(open);
      return;
    }
    case 'cancelled':
      void vscode.window.showInformationMessage(`Taskloom: ${goal} cancelled — ${counts}.`, 'Show Run').then(open);
      return;
    case 'failed': {
      // What stopped it (a storage error with its hint, an engine error) came as the run's end, not as a request's error.
      const why = state?.finishedSummary ? `: ${plainText(state.finishedSummary, 300)}` : '.';
      void vscode.window.showErrorMessage(`Taskloom: ${goal} failed — ${counts}${why}`, 'Show Run').then(open);
      return;
    }
    default:
  }
}

const STEP_ACTION = { 'Review Diff': 'integrationDiff', 'Apply…': 'apply', 'Open Pull Request': 'openPullRequest' } as const satisfies Record<string, RunAction>;

/** The buttons of the end-of-run notices and the commands they run. */
const NEXT_STEPS: Record<string, CommandId> = {
  'Show Run': 'taskloom.showRun',
  'Review Diff': 'taskloom.showIntegrationDiff',
  'Apply…': 'taskloom.applyIntegration',
  'Open Pull Request': 'taskloom.openPullRequest',
};
