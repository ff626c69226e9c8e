import * as vscode from 'vscode';
import { log } from './logger';
import type { Services } from './services';
import { resumeOutlookOf } from './state/resumable';
import type { RunEntry } from './state/runsModel';
import { counted } from '../engine/text/counted';
import { resumeMessage } from './resumeMessage';
import { plainText, runPhase } from './tree/presentation';
import { isRunOver } from '../engine/domain/runState';
import { countSentence } from '../engine/domain/taskCounts';
import { runCommand } from './runCommand';
import { baselineChoiceWords, baseName } from '../engine/text/gateWords';
import { goalHeadline } from '../engine/text/clip';

/** How long to wait for the previous window's engine to let go of the workspace after a reload. */
const PREVIOUS_ENGINE_GRACE_MS = 8_000;

/**
 * On opening a workspace with an unfinished run: one notification per folder with Resume /
 * Show / Discard. Nothing when there is nothing to resume, or when another process drives it.
 */
export async function promptToResume(services: Services): Promise<void> {
  const { controller } = services;
  for (const folder of controller.folders()) {
    let listed = await controller.refresh(folder);
    const deadline = Date.now() + PREVIOUS_ENGINE_GRACE_MS;
    while (listed?.drivenElsewhere && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      listed = await controller.refresh(folder);
    }
    if (!listed) continue;
    if (listed.drivenElsewhere) {
      log.info(`${folder}: ${listed.drivenElsewhere}; not offering to resume here.`);
      continue;
    }
    const entry = controller.model.runs(folder).find((e) => !isRunOver(e.summary.status));
    if (!entry) continue;
    void offer(services, entry);
  }
}

async function offer(services: Services, entry: RunEntry): Promise<void> {
  const ref = { folder: entry.folder, runId: entry.summary.runId };
  const state = await services.controller.state(ref.folder, ref.runId);
  const phase = runPhase(entry.summary, state);
  const goal = plainText(goalHeadline(entry.summary.goal), 80);
  if (phase === 'awaitingApproval') {
    const choice = await vscode.window.showInformationMessage(`Taskloom run '${goal}' has a plan waiting for your approval.`, 'Review Plan', 'Discard');
    if (choice === 'Review Plan') await runCommand('taskloom.reviewPlan', ref);
    if (choice === 'Discard') await runCommand('taskloom.discardRun', ref);
    return;
  }
  const outlook = resumeOutlookOf({ ...entry, ...(state ? { state } : {}) });
  if (!outlook) return;
  // Each offer also lives in Needs You (state/attention.ts): a toast that hides itself loses nothing.
  if (outlook.kind === 'waitsForYou') {
    const choice = await vscode.window.showWarningMessage(
      `Taskloom run '${goal}' stopped with ${countSentence(entry.summary)}: ${counted(outlook.tasks, 'task')} ${outlook.tasks === 1 ? 'needs' : 'need'} you before it can go on.`,
      'Show Needs You',
      'Show Run',
    );
    if (choice === 'Show Needs You') await vscode.commands.executeCommand('taskloom.needsYou.focus');
    if (choice === 'Show Run') await runCommand('taskloom.showRun', ref);
    return;
  }
  if (outlook.kind === 'nothing') return;
  if (outlook.kind === 'choosesBaseline') {
    const words = baselineChoiceWords(outlook.commands, state ? baseName(state) : undefined);
    const paused = entry.summary.status === 'paused';
    // Three buttons at most: a fourth cuts every title short.
    const choice = await vscode.window.showWarningMessage(`Taskloom run '${goal}' waits for your choice: ${words}.`, 'Treat as Advisory', 'Keep as Required', paused ? 'Cancel Run' : 'Show Run');
    if (choice === 'Treat as Advisory') await runCommand('taskloom.treatAsAdvisory', ref);
    if (choice === 'Keep as Required') await runCommand('taskloom.keepAsRequired', ref);
    if (choice === 'Cancel Run') await runCommand('taskloom.cancelRun', ref);
    if (choice === 'Show Run') await runCommand('taskloom.showRun', ref);
    return;
  }
  if (outlook.kind === 'startAgain') {
    const withPlan = outlook.withPlan ? ['Start Again with This Plan'] : state?.rejectedPlan !== undefined ? ['Open Plan'] : [];
    const choice = await vscode.window.showWarningMessage(`Taskloom run '${goal}' cannot go on: ${outlook.why}.`, 'Plan Again', ...withPlan, 'Show Run', 'Discard');
    if (choice === 'Plan Again') await runCommand('taskloom.planAgain', ref);
    if (choice === 'Start Again with This Plan') await runCommand('taskloom.startAgainWithPlan', ref);
    if (choice === 'Open Plan') await runCommand('taskloom.openRejectedPlan', ref);
    if (choice === 'Show Run') await runCommand('taskloom.showRun', ref);
    if (choice === 'Discard') await runCommand('taskloom.discardRun', ref);
    return;
  }
  // Resume on such a run is refused by the engine until the user confirmed a modal listing what would run.
  const foreign = entry.summary.foreign ? ' It was not started by Taskloom on this machine: you will be shown what it would run first.' : '';
  const choice = await vscode.window.showInformationMessage(`${resumeMessage(entry.summary, phase)}${foreign}`, 'Resume', 'Show Run', 'Discard');
  if (choice === 'Resume') await runCommand('taskloom.resumeRun', ref);
  if (choice === 'Show Run') await runCommand('taskloom.showRun', ref);
  if (choice === 'Discard') await runCommand('taskloom.discardRun', ref);
}
