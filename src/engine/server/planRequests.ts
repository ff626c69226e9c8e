import { resolve } from 'node:path';
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import type {
  ApprovePlanParams,
  CheckPlanParams,
  CheckPlanResult,
  RejectPlanParams,
  RevisePlanParams,
  StartGoalParams,
  StartGoalResult,
} from '../../protocol/engineProtocol';
import type { Plan } from '../domain/plan';
import { loadPlanFile, parsePlanJson, parsePlanMarkdown } from '../plan/loadPlanFile';
import { PlanValidationError } from '../plan/parsePlan';
import { PlanningError } from '../run/planner';
import * as planApproval from '../usecases/planApproval';
import { startRun } from '../usecases/startRun';
import { PlanningCancelledError } from '../usecases/useCaseErrors';
import { editorRunSettings } from './editorSettings';
import { driveInBackground, startPlanning } from './runDriver';
import type { ServerOutput } from './serverOutput';
import { PlanningFailedError, UserError } from './userError';
import type { WorkspaceHosts } from './workspaceHosts';

/**
 * Creates the run and plans the goal, or takes the plan file as its plan (src/engine/usecases/startRun.ts);
 * answers once the plan waits for approval, while the run's events stream. Cancelling the request
 * (or a CancelRequest) stops the planner and ends the run cancelled; a planning failure ends it
 * failed and is the request's user-facing error.
 */
export async function startGoal(
  hosts: WorkspaceHosts,
  output: ServerOutput,
  params: StartGoalParams,
  token: CancellationToken,
): Promise<StartGoalResult> {
  const goal = typeof params.goal === 'string' ? params.goal.trim() : '';
  const planFile = typeof params.planFile === 'string' ? params.planFile.trim() : '';
  if (!goal && !planFile) throw new UserError('A run needs a goal for the planner, or a plan file', 'Type a goal, or pick a JSON or Markdown plan.');
  const host = await hosts.forFolder(params.folder);
  // Read before taking the lock: a bad file is the user's to fix, not a run.
  const planFromFile = planFile ? loadPlanFile(resolve(params.folder, planFile)) : undefined;
  const { settings, warning } = editorRunSettings(host.root, params.settings ?? {}, params.workspaceTrusted === true);
  const started = await host.withEngine((engine) => {
    const { session, plan } = startRun(host.door(engine, params.folder), {
      goal: goal || planFromFile!.goal,
      plan: planFromFile,
      settings,
      baseDir: params.folder,
    });
    // Captured now: once planning ends, the engine (and with it this session) may be closed.
    const { runId, ignoredChanges } = session.state;
    if (plan) return { runId, ignoredChanges, plan: Promise.resolve(plan) };
    const planning = startPlanning(host, session, params.folder, output);
    token.onCancellationRequested(() => planning.work.controller.abort());
    if (token.isCancellationRequested) planning.work.controller.abort();
    return { runId, ignoredChanges, plan: planning.plan };
  });
  try {
    const plan = await started.plan;
    return { runId: started.runId, plan, ignoredChanges: started.ignoredChanges, ...(warning ? { settingsWarning: warning } : {}) };
  } catch (error) {
    if (error instanceof PlanningCancelledError && token.isCancellationRequested) {
      throw new ResponseError(LSPErrorCodes.RequestCancelled, error.message);
    }
    if (error instanceof PlanningError) throw new PlanningFailedError(started.runId, error);
    throw error;
  }
}

/** Approves the proposed plan (the human's edit first becomes the next draft) and drives the run in the background. */
export async function approvePlan(hosts: WorkspaceHosts, output: ServerOutput, params: ApprovePlanParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine((engine) => {
    const { session } = planApproval.approvePlan(host.door(engine, params.folder), { runId: params.runId, plan: params.plan, by: params.by });
    driveInBackground(host, session, params.folder, output);
  });
}

/** A person fills in a task the planner left incomplete, or drops it; the plan keeps waiting for approval. */
export async function revisePlan(hosts: WorkspaceHosts, params: RevisePlanParams): Promise<Plan> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine((engine) => planApproval.revisePlan(host.door(engine, params.folder), params));
}

/** Ends a run whose plan the human did not approve; nothing was built. */
export async function rejectPlan(hosts: WorkspaceHosts, params: RejectPlanParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine((engine) => planApproval.rejectPlan(host.door(engine, params.folder), params));
}

/**
 * Validates a plan the human is editing by the rules approval applies, listing every problem at
 * once: JSON text, or a Markdown checklist when its source is a .md file.
 */
export async function checkPlan(params: CheckPlanParams): Promise<CheckPlanResult> {
  if (typeof params.text !== 'string') throw new UserError('There is no plan text to check');
  const source = typeof params.source === 'string' && params.source ? params.source : 'plan.json';
  try {
    return { problems: [], plan: /\.(md|markdown)$/i.test(source) ? parsePlanMarkdown(params.text, source) : parsePlanJson(params.text, source) };
  } catch (error) {
    if (error instanceof PlanValidationError) return { problems: error.problems, spans: error.problems.map((_, i) => error.places[i]?.span ?? null) };
    throw error;
  }
}
