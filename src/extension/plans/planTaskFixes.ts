import * as vscode from 'vscode';
import type { Plan } from '../../engine/domain/plan';
import { dependentsOf, planTaskFindings, type FillableTaskField, type PlanTaskFinding, type PlanTaskFix } from '../../engine/domain/planFindings';
import { counted } from '../../engine/text/counted';
import { planFindingsSentence } from '../../engine/text/planFindingWords';
import { RevisePlanRequest } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';
import type { RunRef } from '../targets/runRef';
import { runCommand } from '../runCommand';
import { goalHeadline } from '../../engine/text/clip';

/**
 * A drafted plan with tasks left incomplete cannot be approved: the notification names them and
 * asks to fill in (or drop) the first; the run view lists every one with the same buttons.
 */
export async function askToFinishPlan(services: Services, ref: RunRef, goal: string, plan: Plan, findings: PlanTaskFinding[]): Promise<void> {
  const [first] = findings as [PlanTaskFinding];
  // Three short buttons fit a notification; Cancel Run is above the plan in the run view.
  const choice = await vscode.window.showWarningMessage(
    `Taskloom drafted ${counted(plan.tasks.length, 'task')} for "${plainText(goalHeadline(goal), 80)}", but ${planFindingsSentence(findings)}: fill it in or drop the task before the run can start.`,
    'Fill In…',
    'Drop Task',
    'Edit Plan',
  );
  if (!choice) return;
  // The run view may have settled the task meanwhile: a toast cannot be taken back, so it looks first.
  const now = await services.controller.state(ref.folder, ref.runId);
  if (!now || now.planApproved || now.status !== 'planning' || !planTaskFindings(now.plan).some((f) => f.taskId === first.taskId && f.field === first.field)) {
    void vscode.window.showInformationMessage(`Taskloom: task "${first.taskId}" no longer waits to be filled in.`);
    return;
  }
  if (choice === 'Fill In…') await fillPlanTask(services, ref, first.taskId, first.field);
  if (choice === 'Drop Task') await dropPlanTask(services, ref, first.taskId);
  if (choice === 'Edit Plan') await runCommand('taskloom.editPlan', ref);
}

/** Asks for the text the planner left out; the plan with it becomes the next draft, and the review goes on. */
export async function fillPlanTask(services: Services, ref: RunRef, taskId: string, field?: FillableTaskField): Promise<void> {
  const state = await services.controller.state(ref.folder, ref.runId);
  const task = state?.plan.tasks.find((t) => t.id === taskId);
  if (!state || !task) return;
  const missing = field ?? planTaskFindings({ tasks: [task] })[0]?.field ?? 'description';
  const text = await vscode.window.showInputBox({
    title: `Taskloom: the ${missing} of task "${taskId}"`,
    prompt: missing === 'description' ? `What the actor is to build for "${plainText(task.title || taskId, 120)}", in enough detail to do it.` : 'What the task does, in a line.',
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : `Type the ${missing}, or press Escape and drop the task instead`),
  });
  if (!text?.trim()) return;
  await revise(services, ref, { taskId, fill: { field: missing, text: text.trim() } });
}

/** Drops a task from the plan waiting for approval, once the user confirmed (naming what depended on it). */
export async function dropPlanTask(services: Services, ref: RunRef, taskId: string): Promise<void> {
  const state = await services.controller.state(ref.folder, ref.runId);
  if (!state) return;
  const dependents = dependentsOf(state.plan, taskId);
  const detail = dependents.length
    ? `${dependents.map((d) => `"${d}"`).join(', ')} ${dependents.length === 1 ? 'depends' : 'depend'} on it and will start without it.`
    : 'No other task depends on it.';
  if (!(await services.confirm(`Drop task "${taskId}" from the plan?`, detail, 'Drop Task'))) return;
  await revise(services, ref, { taskId, drop: true });
}

async function revise(services: Services, ref: RunRef, fix: PlanTaskFix): Promise<void> {
  try {
    await services.engine.request(RevisePlanRequest.type, { ...ref, fix });
  } catch (error) {
    void showError('change the plan', error);
    return;
  }
  await runCommand('taskloom.reviewPlan', ref);
}
