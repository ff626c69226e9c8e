import * as vscode from 'vscode';
import { planTaskFindings } from '../../engine/domain/planFindings';
import { counted } from '../../engine/text/counted';
import { RejectPlanRequest } from '../../protocol/engineProtocol';
import type { CommandId } from '../commandIds';
import { showError } from '../connection/userErrors';
import { runCommand } from '../runCommand';
import type { Services } from '../services';
import { runActionApplies } from '../targets/applicability';
import type { RunRef } from '../targets/runRef';
import { plainText } from '../tree/presentation';
import { askToFinishPlan } from './planTaskFixes';
import { goalHeadline } from '../../engine/text/clip';

/** The notification's buttons run the commands, which check that the plan still waits when one is pressed. */
const REVIEW_CHOICES = { Approve: 'taskloom.approvePlan', Edit: 'taskloom.editPlan', 'Cancel Run': 'taskloom.rejectPlan' } as const satisfies Record<string, CommandId>;

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
    `Taskloom drafted ${counted(tasks, 'task')} for "${plainText(goalHeadline(state.goal), 80)}". Start the run with this plan?`,
    ...(Object.keys(REVIEW_CHOICES) as Array<keyof typeof REVIEW_CHOICES>),
  );
  if (choice) await runCommand(REVIEW_CHOICES[choice], ref);
}

/** Cancel Run on a plan waiting for approval: the run ends, nothing was built. */
export async function rejectPlan(services: Services, ref: RunRef): Promise<void> {
  if (!(await runActionApplies(services.controller, ref, 'rejectPlan'))) return;
  try {
    await services.engine.request(RejectPlanRequest.type, { ...ref, reason: 'the plan was not approved; nothing was run' });
  } catch (error) {
    showError('cancel the run', error);
  }
}
