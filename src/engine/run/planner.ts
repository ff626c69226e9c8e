import { z } from 'zod';
import { failureDetail, type RunnerResult } from '../agents/runner';
import { budgetStop } from '../domain/budget';
import type { Plan } from '../domain/plan';
import { blockingFindings, type CriticFinding } from '../domain/verdict';
import { agentJsonSchema } from '../loop/agentJsonSchema';
import { answerCandidates, CRITIC_VERDICT_JSON_SCHEMA, parseCriticVerdict } from '../loop/criticRubric';
import { planRepairPrompt, plannerPrompt, planReviewPrompt } from '../loop/planPrompts';
import { parsePlan, PlanValidationError } from '../plan/parsePlan';
import { describeRepository } from '../workspace/repoContext';
import { callAgent } from './agentCall';
import type { RunContext } from './runContext';
import { RUNNER_STATUS_WORDS } from '../domain/stateWords';
import type { NextStep } from '../domain/nextStep';
import { TaskloomError } from '../domain/taskloomError';

/** Hints reach the editor and the CLI alike: each names its own way to the same step. */
const START_FROM_PLAN = 'start from a plan you write';

/** Planning ended without a usable plan; the raw answers are in the run's log. */
export class PlanningError extends TaskloomError {
  constructor(message: string, hint: string, next: readonly NextStep[] = []) {
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
const MAX_RAW_ANSWER = 4000;

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

async function draftPlan(ctx: PlannerContext, prompt: string): Promise<Plan> {
  // Each planner call is its own attempt (drafts and repairs alike), so a script can tell them apart.
  const ask = (text: string, resumeSessionId?: string) =>
    call(ctx, 'planner', ++ctx.plannerCalls, text, PLAN_JSON_SCHEMA, resumeSessionId);
  let result = await ask(prompt);
  let parsed = readPlan(result, ctx.session.state.goal);
  if ('problem' in parsed) {
    result = await ask(`${prompt}\n\n${planRepairPrompt(parsed.problem)}`, result.sessionId);
    parsed = readPlan(result, ctx.session.state.goal);
  }
  if ('problem' in parsed) {
    ctx.session.emit({ type: 'warning', message: `planner answer kept for review: ${result.text.slice(0, MAX_RAW_ANSWER)}` });
    throw new PlanningError(
      `The planner gave no valid plan after one repair request: ${parsed.problem}`,
      `Its answer is in the run log; retry, or ${START_FROM_PLAN}.`,
      [{ kind: 'startFromPlanFile' }],
    );
  }
  return parsed.plan;
}

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
      const plan = parsePlan(candidate);
      return { plan: { ...plan, goal } };
    } catch (error) {
      problem = error instanceof PlanValidationError ? error.problems.join('; ') : (error as Error).message;
    }
  }
  return { problem };
}
