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
import { EDITOR_SETTING_KEYS, type RunSettings } from '../../protocol/runSettings';
import type { Plan } from '../domain/plan';
import { loadPlanFile, parsePlanJson, parsePlanMarkdown } from '../plan/loadPlanFile';
import { parsePlan, parsePlanDraft, PlanValidationError } from '../plan/parsePlan';
import { lastPlanRound } from '../plan/planReview';
import { PlanningError } from '../run/planner';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import { runConfigFromSettings } from '../run/runConfigFromSettings';
import { driveInBackground, startPlanning, PlanningCancelledError } from './runDriver';
import type { ServerOutput } from './serverOutput';
import { PlanningFailedError, UserError } from './userError';
import type { WorkspaceHosts } from './workspaceHosts';

/**
 * Creates the run and plans the goal (or proposes the plan file as the first draft); answers
 * once the plan waits for approval, while the run's events stream. Cancelling the request (or
 * a CancelRequest) stops the planner and ends the run cancelled; a planning failure ends it
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
  const started = await host.withEngine((engine) => {
    // Settings the editor left out take the defaults, as flags the CLI was not given do.
    const config = runConfigFromSettings(params.settings ?? ({} as RunSettings), { baseDir: params.folder, repoRoot: engine.repo.root, labels: EDITOR_SETTING_KEYS });
    assertAgentsInstalled(config, planFromFile, EDITOR_SETTING_KEYS);
    const runGoal = goal || planFromFile!.goal;
    // Without a plan the run starts in `planning`: a plan file, too, waits for the human's approval.
    const created = engine.createRun(undefined, config, runGoal);
    host.forward(params.folder, engine.store.events(created.runId).events[0]!);
    const session = host.session(engine, created.runId, params.folder);
    if (planFromFile) {
      const plan = { ...planFromFile, goal: runGoal };
      session.emit({ type: 'plan_proposed', round: 1, plan });
      return { runId: session.runId, ignoredChanges: session.state.ignoredChanges, plan: Promise.resolve(plan) };
    }
    const planning = startPlanning(host, session, params.folder, output);
    token.onCancellationRequested(() => planning.work.controller.abort());
    if (token.isCancellationRequested) planning.work.controller.abort();
    // Captured now: once planning ends, the engine (and with it this session) may be closed.
    return { runId: session.runId, ignoredChanges: session.state.ignoredChanges, plan: planning.plan };
  });
  try {
    const plan = await started.plan;
    return { runId: started.runId, plan, ignoredChanges: started.ignoredChanges };
  } catch (error) {
    if (error instanceof PlanningCancelledError && token.isCancellationRequested) {
      throw new ResponseError(LSPErrorCodes.RequestCancelled, error.message);
    }
    if (error instanceof PlanningCancelledError) throw new UserError(error.message);
    if (error instanceof PlanningError) throw new PlanningFailedError(started.runId, error);
    throw error;
  }
}

/** Approves the proposed plan (the human's edit first becomes the next draft) and starts driving. */
export async function approvePlan(hosts: WorkspaceHosts, output: ServerOutput, params: ApprovePlanParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine((engine) => {
    host.assertIdle(params.runId);
    const session = host.session(engine, params.runId, params.folder);
    const { state } = session;
    if (state.planApproved) throw new UserError(`The plan of run ${state.runId} is already approved`, 'Resume the run to continue it.');
    if (state.status !== 'planning' || state.plan.tasks.length === 0) {
      throw new UserError(`Run ${state.runId} has no plan waiting for approval (it is ${state.status})`, 'Start the goal again.');
    }
    const edited: Plan | undefined = params.plan !== undefined && params.plan !== null ? { ...parsePlan(params.plan), goal: state.goal } : undefined;
    assertAgentsInstalled(state.config, edited ?? state.plan, EDITOR_SETTING_KEYS);
    if (edited && !samePlan(edited, state.plan)) session.emit({ type: 'plan_proposed', round: lastPlanRound(state) + 1, plan: edited });
    engine.approvePlan(session, params.by === 'autopilot' ? 'autopilot' : 'human');
    driveInBackground(host, session, params.folder, output);
  });
}

/** A person fills in a task the planner left incomplete, or drops it; the plan keeps waiting for approval. */
export async function revisePlan(hosts: WorkspaceHosts, params: RevisePlanParams): Promise<Plan> {
  const host = await hosts.forFolder(params.folder);
  return host.withEngine((engine) => {
    host.assertIdle(params.runId);
    return engine.revisePlan(host.session(engine, params.runId, params.folder), params.fix);
  });
}

/** Ends a run whose plan the human did not approve; nothing was built. */
export async function rejectPlan(hosts: WorkspaceHosts, params: RejectPlanParams): Promise<void> {
  const host = await hosts.forFolder(params.folder);
  await host.withEngine((engine) => {
    host.assertIdle(params.runId);
    const session = host.session(engine, params.runId, params.folder);
    const { state } = session;
    if (state.planApproved || state.status !== 'planning') {
      throw new UserError(`Run ${state.runId} has no plan waiting for approval (it is ${state.status})`, 'Cancel the run instead.');
    }
    engine.rejectPlan(session, params.reason?.trim() || 'the plan was not approved; nothing was run');
  });
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

/** Compared in their normal form, so a plan sent back unchanged is not a new draft (the one waiting may still have blanks to fill in). */
const samePlan = (a: Plan, b: Plan): boolean => JSON.stringify(parsePlanDraft(a)) === JSON.stringify(parsePlanDraft(b));
