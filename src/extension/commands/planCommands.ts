import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { Plan } from '../../engine/domain/plan';
import { planTaskFindings } from '../../engine/domain/planFindings';
import { CheckPlanRequest, PredictOverlapsRequest, RejectPlanRequest, type PredictedOverlaps } from '../../protocol/engineProtocol';
import { showError } from '../connection/userErrors';
import type { Services } from '../services';
import { plainText } from '../tree/presentation';
import { runActionApplies } from './applicability';
import type { RunRef } from './runRef';
import { approveAndDrive } from './startGoal';
import { counted } from '../../engine/text/counted';
import { planDiagnostic, storedPlanFile } from './planFiles';
import { askToFinishPlan } from './planTaskFixes';

export const PLAN_SCHEME = 'taskloom-plan';

/** The plan as a readable document: tasks in order, their dependencies and acceptance criteria, and the predicted overlaps. */
export function planMarkdown(goal: string, plan: Plan, overlaps?: PredictedOverlaps): string {
  const lines = [`# Plan: ${plainText(goal, 200)}`, ''];
  if (plan.rationale) lines.push(plainText(plan.rationale, 2000), '');
  if (overlaps?.pairs.length) {
    const how =
      overlaps.mode === 'serialize'
        ? 'Each second task waits until the first is merged, and starts from the integration branch that holds it.'
        : 'They run side by side (taskloom.schedule.overlap is "warn"); the merge queue resolves conflicts.';
    lines.push('## Predicted overlaps', '', how, '', ...overlaps.pairs.map((p) => `- ${p.second} after ${p.first}: both touch ${p.files.join(', ')}`), '');
  }
  for (const task of plan.tasks) {
    lines.push(`## ${task.id}: ${plainText(task.title, 200)}`);
    lines.push(task.dependsOn.length ? `After: ${task.dependsOn.join(', ')}` : 'No dependencies', '');
    lines.push(task.description || '*No description yet: fill it in (or drop the task) in the run view before the plan can be approved.*', '');
    if (task.acceptance.length) lines.push('Acceptance:', ...task.acceptance.map((a) => `- ${a}`), '');
  }
  return lines.join('\n');
}

const planUri = (ref: RunRef) => vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/Plan ${ref.runId}.md`, query: ref.folder });

export class PlanDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: Services) {}
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const runId = uri.path.replace(/^\/Plan /, '').replace(/\.md$/, '');
    const state = await this.services.controller.state(uri.query, runId);
    if (!state) return `Run ${runId} was not found.`;
    const overlaps = await this.services.engine.request(PredictOverlapsRequest.type, { folder: uri.query, runId }).catch(() => undefined);
    return planMarkdown(state.goal, state.plan, overlaps);
  }
}

/** The plan as a read-only Markdown document: descriptions, acceptance and predicted overlaps, which the graph leaves out. */
export async function showPlanDocument(ref: RunRef): Promise<void> {
  await vscode.window.showTextDocument(planUri(ref), { preview: true });
}

/** The notification's buttons run the commands, which check that the plan still waits when one is pressed. */
const REVIEW_CHOICES = { Approve: 'taskloom.approvePlan', Edit: 'taskloom.editPlan', 'Cancel Run': 'taskloom.rejectPlan' } as const;

/**
 * Shows the drafted plan in the run view (its graph, with Approve / Edit / Cancel Run above it) and
 * asks the same in a notification; while a task waits to be filled in, it asks for that first.
 */
export async function reviewPlan(services: Services, ref: RunRef): Promise<void> {
  // The plan still waits (it may have tasks to fill in before it can be approved).
  if (!(await runActionApplies(services.controller, ref, 'editPlan'))) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  if (!state) return;
  services.runViews.show(ref.folder, ref.runId);
  const tasks = state.plan.tasks.length;
  const findings = planTaskFindings(state.plan);
  if (findings.length > 0) {
    await askToFinishPlan(services, ref, state.goal, state.plan, findings);
    return;
  }
  const choice = await vscode.window.showInformationMessage(
    `Taskloom drafted ${counted(tasks, 'task')} for "${plainText(state.goal, 80)}". Start the run with this plan?`,
    ...(Object.keys(REVIEW_CHOICES) as Array<keyof typeof REVIEW_CHOICES>),
  );
  if (choice) await vscode.commands.executeCommand(REVIEW_CHOICES[choice], ref);
}

export async function rejectPlan(services: Services, ref: RunRef): Promise<void> {
  if (!(await runActionApplies(services.controller, ref, 'rejectPlan'))) return;
  try {
    await services.engine.request(RejectPlanRequest.type, { ...ref, reason: 'the plan was not approved; nothing was run' });
  } catch (error) {
    showError('cancel the run', error);
  }
}

/** Edited plans live in the extension's storage, never in the user's repository. */
const editFile = (services: Services, runId: string) => join(services.context.globalStorageUri.fsPath, 'plans', `${runId}.plan.json`);

/** Opens the plan as JSON; each save re-validates it and offers to approve a valid plan. */
export async function editPlan(services: Services, ref: RunRef): Promise<void> {
  if (!(await runActionApplies(services.controller, ref, 'editPlan'))) return;
  const state = await services.controller.state(ref.folder, ref.runId);
  if (!state) return;
  const file = await storedPlanFile(services, basename(editFile(services, ref.runId)), `${JSON.stringify(state.plan, null, 2)}\n`);
  services.planEdits.set(file, ref);
  // A tab of its own: the plan's read-only preview must not take its place.
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
  void vscode.window.showInformationMessage('Edit the plan and save: Taskloom checks it on every save and then asks to approve it.');
}

/**
 * Checks a saved plan edit, or a plan file shown with its problems (planFiles.ts); problems go to
 * the Problems panel, a valid edit can be approved and a valid plan file can start a run.
 */
export function watchPlanEdits(services: Services): vscode.Disposable {
  const diagnostics = services.planDiagnostics;
  // One word on the plan's problems at a time, gone once they are fixed: a toast would stay beside "valid".
  let problemsMessage: vscode.Disposable | undefined;
  const saved = vscode.workspace.onDidSaveTextDocument(async (document) => {
    const path = document.uri.fsPath;
    const ref = services.planEdits.get(path);
    const fixFolder = services.planFixes.get(path);
    if (!ref && !fixFolder) return;
    // The engine checks it: the same rules as approval, and the extension stays small.
    const { problems, spans, plan } = await services.engine.request(CheckPlanRequest.type, { text: document.getText(), source: path });
    problemsMessage?.dispose();
    problemsMessage = undefined;
    if (!plan) {
      diagnostics.set(document.uri, problems.map((p, i) => planDiagnostic(p, spans?.[i])));
      problemsMessage = vscode.window.setStatusBarMessage(`$(error) The plan has ${counted(problems.length, 'problem')}: fix them and save again`);
      return;
    }
    diagnostics.delete(document.uri);
    if (!ref) {
      const start = await vscode.window.showInformationMessage(`The plan is valid (${counted(plan.tasks.length, 'task')}). Start a run with it?`, 'Start Run', 'Keep Editing');
      if (start !== 'Start Run') return;
      services.planFixes.delete(path);
      await vscode.commands.executeCommand('taskloom.startGoal', { folder: fixFolder, planFile: path });
      return;
    }
    const choice = await vscode.window.showInformationMessage(`The edited plan is valid (${plan.tasks.length} tasks). Approve it and start?`, 'Approve', 'Keep Editing');
    if (choice !== 'Approve') return;
    services.planEdits.delete(path);
    await approveAndDrive(services, ref, plan, 'human');
  });
  return vscode.Disposable.from(saved, { dispose: () => problemsMessage?.dispose() });
}

/** Approves a run's plan: as edited, when an edit of it is open, else as proposed. */
export async function approvePlanFromEdit(services: Services, ref: RunRef): Promise<void> {
  const file = editFile(services, ref.runId);
  const open = services.planEdits.has(file) ? vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file) : undefined;
  let plan: Plan | undefined;
  if (open) {
    const checked = await services.engine.request(CheckPlanRequest.type, { text: open.getText(), source: file });
    if (!checked.plan) {
      void vscode.window.showErrorMessage(`Taskloom: the edited plan has ${counted(checked.problems.length, 'problem')}: ${checked.problems.join('; ')}`);
      return;
    }
    plan = checked.plan;
  }
  services.planEdits.delete(file);
  await approveAndDrive(services, ref, plan, 'human');
}
