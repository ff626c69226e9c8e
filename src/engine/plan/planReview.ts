import { applyPlanTaskFix, type PlanTaskFinding, type PlanTaskFix } from '../domain/planFindings';
import type { Plan } from '../domain/plan';
import type { RunState } from '../domain/runState';
import { TaskloomError } from '../domain/taskloomError';
import { planFindingsSentence } from '../text/planFindingWords';
import { parsePlanDraft } from './parsePlan';

/** Approval refused: a task of the plan still lacks what its actor needs (domain/planFindings.ts). */
export class PlanNotReadyError extends TaskloomError {
  override readonly name = 'PlanNotReadyError';
  constructor(readonly findings: PlanTaskFinding[]) {
    super('bad_input', `The plan cannot start yet: ${planFindingsSentence(findings)}`, 'Fill in what is missing or drop the task, then approve the plan.');
  }
}

/** The round of the newest draft (plan_proposed) in the run's ledger; 0 before any. */
export const lastPlanRound = (state: Pick<RunState, 'decisions'>): number =>
  state.decisions.reduce((round, d) => (d.fact.type === 'plan_proposed' ? Math.max(round, d.fact.round) : round), 0);

/**
 * The plan waiting for approval with a person's fix of one task (filled in, or dropped): checked
 * as any draft is, and refused with what to do instead when the fix cannot stand.
 */
export function fixedPlan(state: Pick<RunState, 'runId' | 'status' | 'planApproved' | 'plan' | 'goal'>, fix: PlanTaskFix): Plan {
  if (state.planApproved || state.status !== 'planning' || state.plan.tasks.length === 0) {
    throw new TaskloomError('bad_input', `Run ${state.runId} has no plan waiting for approval (it is ${state.status})`, 'Start the goal again.');
  }
  const task = state.plan.tasks.find((t) => t.id === fix.taskId);
  if (!task) throw new TaskloomError('bad_input', `The plan has no task "${fix.taskId}"`, `Its tasks: ${state.plan.tasks.map((t) => t.id).join(', ')}.`);
  if ('fill' in fix && !fix.fill.text.trim()) {
    throw new TaskloomError('bad_input', `The ${fix.fill.field} of task "${fix.taskId}" cannot be empty`, 'Type what the task is to do, or drop the task.');
  }
  if ('drop' in fix && state.plan.tasks.length === 1) {
    throw new TaskloomError('bad_input', `Dropping task "${fix.taskId}" would leave the plan without a task`, 'Cancel the run instead, or fill the task in.');
  }
  return { ...parsePlanDraft(applyPlanTaskFix(state.plan, fix)), goal: state.goal };
}
