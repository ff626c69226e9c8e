import * as z from 'zod';
import { failureDetail, type RunnerResult } from '../agents/runner';
import { budgetStop } from '../domain/budget';
import type { Plan } from '../domain/plan';
import { blockingFindings, type CriticFinding } from '../domain/verdict';
import { agentJsonSchema } from '../loop/agentJsonSchema';
import { answerCandidates, CRITIC_VERDICT_JSON_SCHEMA, parseCriticVerdict } from '../loop/criticRubric';
import { planRepairPrompt, plannerPrompt, planReviewPrompt } from '../loop/planPrompts';
import { parsePlanDraft, PlanValidationError } from '../plan/parsePlan';
import { planTaskFindings } from '../domain/planFindings';
import { planFindingsSentence } from '../text/planFindingWords';
import { describeRepository } from '../workspace/repoContext';
import { callAgent } from '../session/agentCall';
import type { RunContext } from '../session/runContext';
import { RUNNER_STATUS_WORDS } from '../domain/stateWords';
import type { NextStep } from '../domain/nextStep';
import { TaskloomError } from '../domain/taskloomError';

/** Hints reach the editor and the CLI alike: each names its own way to the same step. */
const START_FROM_PLAN = 'start from a plan you write';

/**
 * Planning ended without a usable plan. `rejectedPlan`: the planner's last answer (its JSON, or
 * its text when it held none), kept with the run so a person can open it, fix it and start from it.
 */
export class PlanningError extends TaskloomError {
  constructor(
    message: string,
    hint: string,
    next: readonly NextStep[] = [],
    readonly rejectedPlan?: string,
  ) {
    super('agent_failed', message, hint, { next });
    this.name = 'PlanningError';
  }
}

/** Strict, as OpenAI's structured outputs demand; `parsePlan` does the real validation. */
const PLAN_JSON_SCHEMA = agentJsonSchema(
  z.strictObject({
    goal: z.string(),
    rationale: z.string(),
    tasks: z.array(
      z.strictObject({
        id: z.string(),
        title: z.string(),
        description: z.string(),
        acceptance: z.array(z.string()),
        dependsOn: z.array(z.string()),
        files: z.array(z.string()),
      }),
    ),
  }),
);
/** A rejected answer longer than this is kept cut short: more is no plan a person fixes by hand. */
const MAX_REJECTED_PLAN = 200_000;

type PlannerContext = Pick<RunContext, 'session' | 'agents' | 'signal' | 'sandbox'> & { plannerCalls: number };

/**
 * The planner drafts a plan for the run's goal, the critic reviews it, and the planner revises
 * it while blocking findings remain, for at most `maxRounds` drafts. Every draft, review and
 * call is an event. Returns the last draft; remaining findings are in the ledger for the human.
 */
export async function planRun(agent: Pick<RunContext, 'session' | 'agents' | 'signal' | 'sandbox'>, maxRounds = 2): Promise<Plan> {
  const ctx: PlannerContext = { ...agent, plannerCalls: 0 };
  const { session } = ctx;
  const { goal, repoRoot } = session.state;
  const repoContext = await describeRepository(repoRoot);
  let previous: { plan: Plan; findings: CriticFinding[] } | undefined;
  for (let round = 1; ; round++) {
    const plan = await draftPlan(ctx, plannerPrompt(goal, repoContext, previous));
    session.emit({ type: 'plan_proposed', round, plan });
    const findings = await reviewPlan(ctx, round, plan);
    if (findings.length === 0 || round >= maxRounds) return plan;
    previous = { plan, findings };
  }
}

/**
 * One draft: the planner's answer, repaired once when it is not a valid plan or leaves a task's
 * title or description empty. Such a task is kept (a finding for the person reviewing the plan)
 * when the repair does not fill it in; a plan that cannot be read at all ends planning.
 */
async function draftPlan(ctx: PlannerContext, prompt: string): Promise<Plan> {
  // Each planner call is its own attempt (drafts and repairs alike), so a script can tell them apart.
  const ask = (text: string, resumeSessionId?: string) =>
    call(ctx, 'planner', ++ctx.plannerCalls, text, PLAN_JSON_SCHEMA, resumeSessionId);
  const { goal } = ctx.session.state;
  let result = await ask(prompt);
  let parsed = readPlan(result, goal);
  const findings = 'plan' in parsed ? planTaskFindings(parsed.plan) : [];
  if ('problem' in parsed || findings.length > 0) {
    const problem = 'problem' in parsed ? parsed.problem : planFindingsSentence(findings);
    const repair = await ask(`${prompt}\n\n${planRepairPrompt(problem)}`, result.sessionId);
    const repaired = readPlan(repair, goal);
    // A plan kept for a person to finish is better than no plan: a repair that cannot be read does not replace it.
    if ('plan' in repaired || 'problem' in parsed) {
      result = repair;
      parsed = repaired;
    }
  }
  if ('problem' in parsed) {
    throw new PlanningError(
      `The planner gave no valid plan after one repair request: ${parsed.problem}`,
      `Plan again, or ${START_FROM_PLAN}.`,
      [{ kind: 'startFromPlanFile' }],
      rejectedPlanText(result),
    );
  }
  return parsed.plan;
}

/** What a person would fix: the answer's first JSON object, laid out, or its text when it holds none. */
function rejectedPlanText(result: RunnerResult): string | undefined {
  for (const candidate of answerCandidates(result.structured, result.text)) {
    if (candidate !== null && typeof candidate === 'object' && !Array.isArray(candidate)) return clip(`${JSON.stringify(candidate, null, 2)}\n`);
  }
  return result.text.trim() ? clip(result.text) : undefined;
}

const clip = (text: string): string => (text.length > MAX_REJECTED_PLAN ? text.slice(0, MAX_REJECTED_PLAN) : text);

async function reviewPlan(ctx: PlannerContext, round: number, plan: Plan): Promise<CriticFinding[]> {
  const result = await call(ctx, 'critic', round, planReviewPrompt(ctx.session.state.goal, plan), CRITIC_VERDICT_JSON_SCHEMA);
  const verdict = parseCriticVerdict(result.structured, result.text);
  if (!verdict) {
    ctx.session.emit({ type: 'warning', message: `the critic's review of plan draft ${round} was unreadable; the draft goes to approval unreviewed` });
    return [];
  }
  const blocking = blockingFindings(verdict);
  ctx.session.emit({ type: 'plan_reviewed', round, verdict, blocking: blocking.length });
  return blocking;
}

async function call(
  ctx: PlannerContext,
  role: 'planner' | 'critic',
  attempt: number,
  prompt: string,
  outputSchema: object,
  resumeSessionId?: string,
): Promise<RunnerResult> {
  const over = budgetStop(ctx.session.state, null);
  if (over) {
    throw new PlanningError(`Planning stopped: ${over}`, `Raise the run budget, or ${START_FROM_PLAN}.`, [
      { kind: 'changeSetting', setting: 'budgets.runUsd' },
      { kind: 'startFromPlanFile' },
    ]);
  }
  const result = await callAgent(ctx, {
    role,
    taskId: null,
    attempt,
    prompt,
    cwd: ctx.session.state.repoRoot,
    access: 'read-only',
    outputSchema,
    ...(resumeSessionId ? { resumeSessionId } : {}),
  });
  if (result.status !== 'ok') {
    throw new PlanningError(
      `The ${role} failed while planning (${RUNNER_STATUS_WORDS[result.status]})${result.error ? `: ${failureDetail(result)}` : ''}`,
      result.status === 'quota'
        ? 'The agent hit a usage limit; try again later.'
        : `${result.cause === 'not_installed' ? 'Install the agent or set its path, then check' : 'Check'} it with Doctor, or ${START_FROM_PLAN}.`,
      result.status === 'quota' ? [] : [{ kind: 'doctor' }, { kind: 'startFromPlanFile' }],
    );
  }
  return result;
}

function readPlan(result: RunnerResult, goal: string): { plan: Plan } | { problem: string } {
  let problem = 'the answer holds no JSON object';
  for (const candidate of answerCandidates(result.structured, result.text)) {
    try {
      const plan = parsePlanDraft(candidate);
      return { plan: { ...plan, goal } };
    } catch (error) {
      problem = error instanceof PlanValidationError ? error.problems.join('; ') : (error as Error).message;
    }
  }
  return { problem };
}
