import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { Plan } from '../../engine/domain/plan';
import { counted } from '../../engine/text/counted';
import { CheckPlanRequest } from '../../protocol/engineProtocol';
import type { Services } from '../services';
import { runActionApplies } from '../targets/applicability';
import type { RunRef } from '../targets/runRef';
import { planDiagnostic, storedPlanFile } from './planFiles';
import { approveAndDrive } from './planning';
import { runCommand } from '../runCommand';

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
      await runCommand('taskloom.startGoal', { folder: fixFolder, planFile: path });
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
