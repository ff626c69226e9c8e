import * as vscode from 'vscode';
import {
  ApplyIntegrationRequest,
  CancelRequest,
  DiscardRunRequest,
  DoctorRequest,
  PreviewApplyRequest,
  ResumeRequest,
  type ResumeParams,
} from '../../protocol/engineProtocol';
import type { RunViewFocus } from '../../protocol/webviewMessages';
import { showError, userData } from '../connection/userErrors';
import { log } from '../logger';
import type { Services } from '../services';
import { applyHistory, readRunSettings } from '../settings';
import { plainText } from '../tree/presentation';
import { isResumable } from '../state/resumable';
import { pickFolder, pickRun, pickRunFor } from '../targets/pickTarget';
import type { RunRef } from '../targets/runRef';
import { requestTrustingRun } from '../connection/trustingRun';
import { appliedAs, HISTORY_WORDS } from '../../engine/text/applyWords';
import { counted } from '../../engine/text/counted';
import { goalHeadline } from '../../engine/text/clip';

/** Resume Run: the run of the row (or notification) it is run from, or the user's pick among the runs a resume would take on. */
export async function resumeRun(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'resume', 'Taskloom: there is no stopped run to resume.');
  if (ref) await resume(services, ref);
}

/** Resume Last Run: the newest run a resume would take on, without asking which. */
export async function resumeLastRun(services: Services, arg?: unknown): Promise<void> {
  if (!arg) {
    await services.controller.refreshAll();
    const newest = services.controller.model
      .allRuns()
      .filter(isResumable)
      .sort((a, b) => b.summary.updatedAt.localeCompare(a.summary.updatedAt))[0];
    arg = newest && { folder: newest.folder, runId: newest.summary.runId };
  }
  await resumeRun(services, arg);
}

/**
 * Treat as Advisory: the run's base fails gate commands where no runner says which tests, and the
 * run waits for the user's choice; this one counts them as advisory for the run and resumes it
 * (checked first: a stale button says what happened instead).
 */
export async function treatAsAdvisory(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'treatAsAdvisory', 'Taskloom: no run waits for a choice about its base.');
  if (ref) await resume(services, ref, { baselineChoice: 'advisory' });
}

/** Keep as Required, the other answer to that choice: the commands are checks of work still to be done, which the tasks must make pass. */
export async function keepAsRequired(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'keepAsRequired', 'Taskloom: no run waits for a choice about its base.');
  if (ref) await resume(services, ref, { baselineChoice: 'required' });
}

async function resume(services: Services, ref: RunRef, choice: Pick<ResumeParams, 'baselineChoice'> = {}): Promise<void> {
  const sinceSeq = services.controller.model.run(ref.folder, ref.runId)?.state?.lastSeq;
  try {
    const sent = await requestTrustingRun(services.confirm, (trust) => services.engine.request(ResumeRequest.type, { ...ref, ...choice, ...trust }));
    if (!sent) return;
  } catch (error) {
    showError('resume the run', error);
    return;
  }
  services.controller.model.setActive(ref.folder, ref.runId, true, sinceSeq);
  await services.controller.loadRun(ref.folder, ref.runId);
  services.driveProgress.show(ref);
}

export async function cancelRun(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'cancel', 'Taskloom: no run is in progress.');
  if (!ref) return;
  await services.engine.request(CancelRequest.type, ref).catch((error: unknown) => showError('cancel the run', error));
}

export async function discardRun(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'discard', 'Taskloom: there is no run to discard.');
  if (!ref) return;
  const goal = services.controller.model.run(ref.folder, ref.runId)?.summary.goal ?? ref.runId;
  const discard = await services.confirm(
    `Discard the run "${plainText(goalHeadline(goal), 80)}"?`,
    'Its worktrees, its taskloom/ branches, snapshot refs and record are deleted. Work applied to your branch stays.',
    'Discard',
  );
  if (!discard) return;
  try {
    try {
      await services.engine.request(DiscardRunRequest.type, ref);
    } catch (error) {
      const lost = userData(error)?.unpublishedWork;
      if (!lost) throw error;
      const anyway = await services.confirm(
        `The run holds work that was never applied or pushed (${lost.join(', ')}). Discard it anyway?`,
        'That work is deleted with the run. Apply Integration to Current Branch keeps it.',
        'Discard Anyway',
      );
      if (!anyway) return;
      await services.engine.request(DiscardRunRequest.type, { ...ref, force: true });
    }
  } catch (error) {
    showError('discard the run', error);
  }
  await services.controller.refresh(ref.folder);
}

/**
 * Asks the engine what applying would make (refused before asking where applying would be: a dirty
 * tree, a run not gated), confirms naming the branch, the history and the number of commits, then
 * says what was made, counted on the branch.
 */
export async function applyIntegration(services: Services, arg?: unknown): Promise<void> {
  const ref = await pickRunFor(services.controller, arg, 'apply', 'Taskloom: no completed run has work left to apply.');
  if (!ref) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  if (!state) return;
  const history = applyHistory(ref.folder) ?? 'merge';
  try {
    const preview = await services.engine.request(PreviewApplyRequest.type, { ...ref, history });
    if (preview.alreadyApplied) {
      void vscode.window.showInformationMessage(`Taskloom: this run is already in ${preview.branch}; nothing to apply.`);
      return;
    }
    const leftOut = preview.leftOut.length ? ` Not included (skipped): ${preview.leftOut.map((t) => t.taskId).join(', ')}.` : '';
    const apply = await services.confirm(
      `Apply "${plainText(goalHeadline(state.goal), 80)}" to ${preview.branch} as ${counted(preview.commits, 'commit')}?`,
      `With ${history} history: ${HISTORY_WORDS[history]}.${leftOut} The agents' drafts stay with the run until you discard it.`,
      'Apply',
    );
    if (!apply) return;
    const result = await services.engine.request(ApplyIntegrationRequest.type, { ...ref, history });
    void vscode.window.showInformationMessage(
      result.alreadyApplied
        ? `Taskloom: this run is already in ${result.branch}; nothing to apply.`
        : `Taskloom applied the run to ${result.branch} as ${appliedAs(history, result.commits)}: ${counted(result.files.length, 'changed file')}, now at ${result.commit.slice(0, 10)}.${leftOut}`,
    );
  } catch (error) {
    showError('apply the integration', error);
  }
}

/** Show Run: the run named, else (the keybinding names none) the run of the row selected in Runs or Needs You, else the user's pick. */
export async function showRunCommand(services: Services, arg?: unknown): Promise<void> {
  const target = arg ?? selectedRow(services);
  const ref = await pickRun(services.controller, target, () => true, 'Taskloom: there are no runs yet. Start one with "Taskloom: Start Goal".');
  if (ref) services.runViews.show(ref.folder, ref.runId, focusOf(target));
}

/** The row last selected in the Runs or the Needs You view, while its run is still there. */
function selectedRow(services: Services): (RunRef & { taskId?: string }) | undefined {
  const row = services.selectedRow;
  return row && services.controller.model.run(row.folder, row.runId) ? row : undefined;
}

/** A link's target inside the run: a Problems entry's "ledger #N" carries a seq, a Needs You row its task. */
function focusOf(arg: unknown): RunViewFocus | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const { seq, taskId } = arg as { seq?: unknown; taskId?: unknown };
  if (Number.isInteger(seq) && (seq as number) > 0) return { seq: seq as number };
  if (typeof taskId === 'string') return { taskId };
  return undefined;
}

export async function openDecisionsLedger(services: Services, arg?: unknown): Promise<void> {
  const ref: RunRef | undefined = await pickRun(services.controller, arg, () => true, 'Taskloom: there are no runs yet.');
  if (!ref) return;
  const ledger = vscode.Uri.file(`${ref.folder}/.taskloom/runs/${ref.runId}/DECISIONS.md`);
  try {
    await vscode.workspace.fs.stat(ledger);
    await vscode.commands.executeCommand('markdown.showPreview', ledger);
  } catch {
    // The ledger file is written as the run goes; before that the run view has the same entries.
    services.runViews.show(ref.folder, ref.runId);
  }
}

export async function doctor(services: Services, folderArg?: string): Promise<void> {
  const folder = await pickFolder(services.controller, folderArg);
  if (!folder) return;
  try {
    const { checks, verdict } = await services.engine.request(DoctorRequest.type, { folder, settings: readRunSettings(folder), workspaceTrusted: vscode.workspace.isTrusted });
    const mark = { ok: '✓', warn: '!', fail: '✗' } as const;
    log.info(`Doctor for ${folder}:\n${checks.map((c) => `${mark[c.status]} ${c.label.padEnd(12)} ${c.text}`).join('\n')}`);
    const show = checks.some((c) => c.status === 'fail') ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    void show(`Taskloom Doctor: ${verdict}`, 'Show Details').then((choice) => choice === 'Show Details' && log.show(true));
  } catch (error) {
    showError('run the doctor', error);
  }
}
