// The ways on from a run that cannot be resumed because it never had an approved plan (its
// planning failed, or it stopped before approval): plan the goal again, start again from its
// plan, or open the plan the planner gave and planning rejected, fix it and start from it.
import * as vscode from 'vscode';
import { CheckPlanRequest } from '../../protocol/engineProtocol';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';
import { showPlanProblems, storedPlanFile } from './planFiles';
import type { RunRef } from '../targets/runRef';
import { runCommand } from '../runCommand';
import { goalHeadline } from '../../engine/text/clip';

/** Plans the run's goal again, in a new run. */
export async function planAgain(services: Services, ref: RunRef): Promise<void> {
  const goal = (await services.controller.state(ref.folder, ref.runId))?.goal;
  if (goal) await runCommand('taskloom.startGoal', { folder: ref.folder, goal });
}

/** A new run from the plan of one that stopped before its plan was approved: the plan waits for approval again. */
export async function startAgainWithPlan(services: Services, ref: RunRef): Promise<void> {
  const state = await services.controller.state(ref.folder, ref.runId);
  if (!state) return;
  if (state.plan.tasks.length === 0) {
    void vscode.window.showInformationMessage(`Taskloom: run "${plainText(goalHeadline(state.goal), 80)}" has no plan to start from; plan its goal again instead.`);
    return;
  }
  const file = await storedPlanFile(services, `${ref.runId}.again.plan.json`, `${JSON.stringify(state.plan, null, 2)}\n`);
  await runCommand('taskloom.startGoal', { folder: ref.folder, planFile: file });
}

/** The planner's answer that planning rejected, opened at its first problem; once fixed and saved, a run can start from it. */
export async function openRejectedPlan(services: Services, ref: RunRef): Promise<void> {
  const state = await services.controller.state(ref.folder, ref.runId);
  if (state?.rejectedPlan === undefined) {
    void vscode.window.showInformationMessage('Taskloom: this run kept no rejected plan; plan its goal again instead.');
    return;
  }
  const file = await storedPlanFile(services, `${ref.runId}.rejected.plan.json`, state.rejectedPlan);
  const { problems, spans } = await services.engine.request(CheckPlanRequest.type, { text: state.rejectedPlan, source: file });
  if (problems.length > 0) {
    await showPlanProblems(services, ref.folder, { file, problems, spans: spans ?? [] });
    return;
  }
  // Valid by today's rules: saving it offers to start a run from it, as for a fixed one.
  services.planFixes.set(file, ref.folder);
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
}

/**
 * Planning ended without a plan that can start: what happened, with the ways on. The run stays in
 * Needs You with the same actions, so a notification that hides loses nothing.
 */
export async function offerAfterPlanningFailed(services: Services, ref: RunRef, message: string, rejectedPlan: boolean): Promise<void> {
  const actions = rejectedPlan ? ['Plan Again', 'Open Plan'] : ['Plan Again'];
  const choice = await vscode.window.showWarningMessage(`Taskloom: planning failed: ${plainText(message, 400)}`, ...actions);
  if (choice === 'Plan Again') await planAgain(services, ref);
  if (choice === 'Open Plan') await openRejectedPlan(services, ref);
}
