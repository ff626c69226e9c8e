import type { Plan } from '../domain/plan';
import type { PlanTaskFix } from '../domain/planFindings';
import { RUN_STATUS_WORDS } from '../domain/stateWords';
import { parsePlan, parsePlanDraft } from '../plan/parsePlan';
import { lastPlanRound } from '../plan/planReview';
import { assertAgentsInstalled } from '../run/assertAgentInstalled';
import { assertNotBusy } from './busyRuns';
import type { FrontDoor } from './frontDoor';
import type { ReadyToDrive } from './resumeRun';
import { NoPlanWaitingError } from './useCaseErrors';

export interface ApproveParams {
  runId: string;
  /** The person's edit of the plan: when it differs from the one waiting, it becomes the next draft, and that one is approved. */
  plan?: Plan;
  by: 'human' | 'autopilot';
}

/** Approves the plan waiting for it (refused while a task is left to fill in); the door then drives the run. */
export function approvePlan(door: FrontDoor, params: ApproveParams): ReadyToDrive {
  const { engine } = door;
  assertNotBusy(door, params.runId);
  const session = door.session(params.runId);
  const { state } = session;
  if (state.planApproved) throw new NoPlanWaitingError(`The plan of run ${state.runId} is already approved`, 'Resume the run to continue it.', [{ kind: 'resume', runId: state.runId }]);
  if (state.status !== 'planning' || state.plan.tasks.length === 0) {
    throw new NoPlanWaitingError(`Run ${state.runId} has no plan waiting for approval (it is ${RUN_STATUS_WORDS[state.status]})`, 'Start the goal again.');
  }
  const edited = params.plan ? { ...parsePlan(params.plan), goal: state.goal } : undefined;
  assertAgentsInstalled(state.config, edited ?? state.plan, door.settingNames);
  if (edited && !samePlan(edited, state.plan)) session.emit({ type: 'plan_proposed', round: lastPlanRound(state) + 1, plan: edited });
  engine.approvePlan(session, params.by);
  return { session };
}

export interface RevisePlanParams {
  runId: string;
  /** A task the planner left incomplete, filled in or dropped. */
  fix: PlanTaskFix;
}

/** A person fills in a task the planner left incomplete, or drops it; the plan keeps waiting for approval, as the next draft. */
export function revisePlan(door: FrontDoor, params: RevisePlanParams): Plan {
  assertNotBusy(door, params.runId);
  return door.engine.revisePlan(door.session(params.runId), params.fix);
}

export interface RejectPlanParams {
  runId: string;
  /** Why, for the run's record; by default that it was not approved. */
  reason?: string;
}

/** Ends a run whose plan the person did not approve; nothing was built, its drafts stay in the ledger. */
export function rejectPlan(door: FrontDoor, params: RejectPlanParams): void {
  assertNotBusy(door, params.runId);
  const session = door.session(params.runId);
  const { state } = session;
  if (state.planApproved || state.status !== 'planning') {
    throw new NoPlanWaitingError(`Run ${state.runId} has no plan waiting for approval (it is ${RUN_STATUS_WORDS[state.status]})`, 'Cancel the run instead.');
  }
  door.engine.rejectPlan(session, params.reason?.trim() || 'the plan was not approved; nothing was run');
}

/** Compared in their normal form, so a plan sent back unchanged is not a new draft (the one waiting may still have blanks to fill in). */
const samePlan = (a: Plan, b: Plan): boolean => JSON.stringify(parsePlanDraft(a)) === JSON.stringify(parsePlanDraft(b));
