import * as vscode from 'vscode';
import type { Plan } from '../../engine/domain/plan';
import { counted } from '../../engine/text/counted';
import { ApprovePlanRequest, StartGoalRequest, StartIssueGoalRequest, type StartGoalResult } from '../../protocol/engineProtocol';
import type { IssueSource } from './issueGoal';
import type { RunSettings } from '../../protocol/runSettings';
import { errorWords, userData } from '../connection/errorNotice';
import { isCancellation, showError } from '../connection/userErrors';
import type { Services } from '../services';
import { readRunSettings } from '../settings';
import { runActionApplies } from '../targets/applicability';
import type { RunRef } from '../targets/runRef';
import { showPlanProblems } from './planFiles';
import { offerAfterPlanningFailed } from './planRecovery';

/** Arguments for scripted use (tests, keybindings): any part left out is asked for. */
export interface StartGoalArgs {
  folder?: string;
  goal?: string;
  planFile?: string;
  /** A GitHub issue to plan as the goal (`#N`, OWNER/REPO#N or its URL), as `taskloom run --issue`. */
  issue?: string;
}

/** Where a run's goal comes from: typed, a plan file, or an issue read (and, for an outsider's, confirmed). */
export type GoalSource = Omit<StartGoalArgs, 'issue' | 'folder'> & { fromIssue?: IssueSource };

/** A goal planned into a run; or no run, because the user cancelled or, in words, what failed. */
export type PlanningOutcome = { result: StartGoalResult } | { cancelled: true } | { failed: string };

/**
 * Plans a goal (or loads a plan file) into a new run, with a progress notification the user can
 * cancel; what failed is shown to the user, and said in the outcome for a caller that answers
 * someone else (the chat, a language model tool). Approval is the caller's next step.
 */
export async function planGoal(services: Services, folder: string, source: GoalSource, settings: RunSettings = readRunSettings(folder)): Promise<PlanningOutcome> {
  let result: StartGoalResult;
  const { fromIssue } = source;
  const planned = fromIssue ? `issue ${fromIssue.preview.repo}#${fromIssue.preview.number}` : `"${source.goal?.slice(0, 60)}"`;
  try {
    result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: source.goal || fromIssue ? `Taskloom: planning ${planned} with ${settings.agent ?? 'the configured agent'}` : 'Taskloom: loading the plan',
        cancellable: true,
      },
      (_progress, token) => {
        const common = { folder, settings, workspaceTrusted: vscode.workspace.isTrusted };
        if (fromIssue) {
          const confirmed = fromIssue.confirmedGoal !== undefined ? { confirmedGoal: fromIssue.confirmedGoal } : {};
          return services.engine.request(StartIssueGoalRequest.type, { ...common, ...fromIssue.forge, issue: fromIssue.issue, ...confirmed }, token);
        }
        return services.engine.request(StartGoalRequest.type, { ...common, ...(source.goal ? { goal: source.goal } : {}), ...(source.planFile ? { planFile: source.planFile } : {}) }, token);
      },
    );
  } catch (error) {
    const cancelled = isCancellation(error);
    await services.controller.refresh(folder);
    if (cancelled) void vscode.window.showInformationMessage('Taskloom: planning cancelled; nothing was built.');
    else void showStartFailure(services, folder, error);
    return cancelled ? { cancelled } : { failed: errorWords(error) };
  }
  await services.controller.loadRun(folder, result.runId);
  services.controller.model.setActive(folder, result.runId, false);
  if (result.settingsWarning) void vscode.window.showWarningMessage(`Taskloom: ${result.settingsWarning}`);
  if (result.ignoredChanges.length) {
    void vscode.window.showInformationMessage(
      `Taskloom works from your last commit; ${counted(result.ignoredChanges.length, 'uncommitted change')} left out of the run: ${result.ignoredChanges.slice(0, 5).join(', ')}${result.ignoredChanges.length > 5 ? '…' : ''}`,
    );
  }
  return { result };
}

/**
 * Why no plan waits for approval, with the way on: a failed planning offers Plan Again (and the
 * rejected plan, to fix); a plan file's problems are shown where they are in the file.
 */
function showStartFailure(services: Services, folder: string, error: unknown): Promise<void> {
  const data = userData(error);
  if (data?.planningFailed) {
    const message = error instanceof Error ? error.message : String(error);
    return offerAfterPlanningFailed(services, { folder, runId: data.planningFailed.runId }, message, data.planningFailed.rejectedPlan);
  }
  if (data?.planProblems) return showPlanProblems(services, folder, data.planProblems);
  return showError('start the goal', error);
}

/** Approves the plan (as proposed, or as edited) and follows the run with progress. */
export async function approveAndDrive(
  services: Services,
  ref: RunRef,
  plan: Plan | undefined,
  by: 'human' | 'autopilot',
): Promise<void> {
  // A button pressed after the plan was approved (or the run cancelled) says so instead of failing.
  // An edit is checked by the engine as it is approved: the plan it fills in may still lack a task's description.
  if (!(await runActionApplies(services.controller, ref, plan ? 'editPlan' : 'approvePlan'))) return;
  try {
    await services.engine.request(ApprovePlanRequest.type, { ...ref, by, ...(plan ? { plan } : {}) });
  } catch (error) {
    showError('approve the plan', error);
    return;
  }
  services.controller.model.setActive(ref.folder, ref.runId, true);
  services.driveProgress.show(ref);
}
