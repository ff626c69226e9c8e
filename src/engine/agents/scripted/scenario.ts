import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import type { AgentRole, CallPurpose } from '../../domain/events';
import { FINDING_CATEGORIES, FINDING_SEVERITIES } from '../../domain/verdict';
import { TaskloomError } from '../../domain/taskloomError';
import { describeJsonError } from '../../text/jsonErrorWords';

/**
 * The script of the scripted agent: what it does on each call, per task and role. A JSON
 * file, so the demo and the tests describe agent behaviour (including hangs, crashes and
 * malformed answers) without a model or a network.
 */

const count = z.number().int().nonnegative();

const usageSchema = z.strictObject({
  inputTokens: count.default(0),
  outputTokens: count.default(0),
  cacheReadTokens: count.default(0),
  cacheWriteTokens: count.default(0),
});

const findingSchema = z.strictObject({
  file: z.string().optional(),
  line: z.number().int().positive().optional(),
  severity: z.enum(FINDING_SEVERITIES),
  category: z.enum(FINDING_CATEGORIES),
  message: z.string(),
});

export const criticVerdictSchema = z.strictObject({
  decision: z.enum(['green', 'changes_required']),
  summary: z.string(),
  findings: z.array(findingSchema),
});

const patchSchema = z.strictObject({
  path: z.string(),
  find: z.string().min(1),
  replace: z.string(),
});

const stepSchema = z
  .strictObject({
    delayMs: count.optional(),
    /** Lines the agent prints while it works, spread over `delayMs` (its messages, as a real agent's transcript). */
    say: z.array(z.string()).optional(),
    write: z.record(z.string(), z.string()).optional(),
    /** Replaces the first occurrence of `find`. */
    patch: z.array(patchSchema).optional(),
    delete: z.array(z.string()).optional(),
    text: z.string().optional(),
    verdict: criticVerdictSchema.optional(),
    /** Any JSON answer (a plan for the planner): printed as the text and returned as structured output. */
    output: z.unknown().optional(),
    /** Printed verbatim as the final answer, with no structured output: for malformed verdicts. */
    raw: z.string().optional(),
    /** Ends the call as agent_error with this message. */
    fail: z.string().optional(),
    /** Prints one activity line at the start, then nothing, forever. */
    hang: z.literal(true).optional(),
    /** After the file changes, prints half a line and exits with code 3. */
    crash: z.literal(true).optional(),
    quota: z.literal(true).optional(),
    usage: usageSchema.optional(),
    costUsd: z.number().nonnegative().optional(),
  })
  .superRefine((step, ctx) => {
    const check = (path: string, at: (string | number)[]) => {
      const problem = relativePathProblem(path);
      if (problem) ctx.addIssue({ code: 'custom', path: at, message: `path "${path}" ${problem}` });
    };
    for (const path of Object.keys(step.write ?? {})) check(path, ['write', path]);
    step.patch?.forEach((p, i) => check(p.path, ['patch', i, 'path']));
    step.delete?.forEach((path, i) => check(path, ['delete', i]));
  });

const stepsSchema = z.array(stepSchema);

const roleScriptSchema = z.strictObject({
  actor: stepsSchema.optional(),
  critic: stepsSchema.optional(),
  /** The actor resolving a merge conflict, by resolution; unscripted, it keeps both sides of every conflict. */
  resolve: stepsSchema.optional(),
  /** The task's actor addressing a review of the run's pull request (`taskloom watch`), by attempt within the fix. */
  fix: stepsSchema.optional(),
  /** The actor of each candidate (the first entry is candidate 1's), by attempt; a candidate without one uses `actor`. */
  candidates: z.array(z.strictObject({ actor: stepsSchema.optional() })).optional(),
  /** The critic comparing the candidates that passed the gate: `output` is `{ "pick": n, "reasons": "…" }`; unscripted, it gives no pick (and Taskloom goes on with the lowest-numbered that passed). */
  compare: stepsSchema.optional(),
});

/** What the agents do on the run's pull request (`taskloom watch`): fixes no task owns, their reviews, base conflicts. */
const pullRequestScriptSchema = z.strictObject({
  /** The integration's actor fixing a failing check or a review of files no task changed, by attempt within the fix. */
  actor: stepsSchema.optional(),
  /** The critic reviewing a fix, by review within the fix; unscripted, it approves. */
  critic: stepsSchema.optional(),
  /** Resolving a conflict with the base branch; unscripted, it keeps both sides. */
  resolve: stepsSchema.optional(),
});

export const scenarioSchema = z.strictObject({
  defaults: z
    .strictObject({
      delayMs: count.optional(),
      usage: usageSchema.optional(),
      costUsd: z.number().nonnegative().optional(),
    })
    .optional(),
  /** Calls of the planner, by attempt (taskId is null for planning). */
  planner: stepsSchema.optional(),
  /** The critic's reviews of the plan, by round (taskId is null); unscripted reviews approve. */
  planReview: stepsSchema.optional(),
  tasks: z.record(z.string(), roleScriptSchema).default({}),
  /** For tasks not listed in `tasks`, or listed without steps for the role. */
  fallback: roleScriptSchema.optional(),
  pullRequest: pullRequestScriptSchema.optional(),
  /**
   * A file (relative to the scenario's folder) each call appends its request to, prompt and all,
   * one JSON line per call: what the tests read to see what an agent was told.
   */
  promptLog: z.string().optional(),
});

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioStep = z.infer<typeof stepSchema>;
export type ScenarioUsage = z.infer<typeof usageSchema>;

export class ScenarioError extends TaskloomError {
  override readonly name = 'ScenarioError';
  constructor(message: string) {
    super('bad_input', message);
  }
}

export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ScenarioError(`cannot read scenario file ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(`scenario file ${path}: ${describeJsonError(text, err as SyntaxError)}`);
  }
  return parseScenario(json, path);
}

export function parseScenario(json: unknown, source = 'scenario'): Scenario {
  const parsed = scenarioSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  - ${formatPath(issue.path) || '(top level)'}: ${issue.message}`);
  throw new ScenarioError(`scenario file ${source} is invalid:\n${problems.join('\n')}`);
}

/**
 * The step for this call: attempt n uses the n-th step, past the end the last one repeats
 * (so a scenario need not spell out every retry). Undefined when nothing is scripted.
 */
export function selectStep(
  scenario: Scenario,
  role: AgentRole,
  taskId: string | null,
  attempt: number,
  purpose?: CallPurpose,
  candidate?: number,
): ScenarioStep | undefined {
  const steps = purposeSteps(scenario, role, taskId, purpose) ?? candidateSteps(scenario, taskId, candidate) ?? stepsFor(scenario, role, taskId);
  if (!steps || steps.length === 0) return undefined;
  return steps[Math.min(Math.max(attempt, 1), steps.length) - 1];
}

function purposeSteps(scenario: Scenario, role: AgentRole, taskId: string | null, purpose: CallPurpose | undefined): ScenarioStep[] | undefined {
  const pr = scenario.pullRequest;
  if (purpose === 'compare') return taskId === null ? [] : (scenario.tasks[taskId]?.compare ?? scenario.fallback?.compare ?? []);
  if (purpose === 'resolve') return taskId === null ? (pr?.resolve ?? []) : (scenario.tasks[taskId]?.resolve ?? scenario.fallback?.resolve ?? []);
  if (purpose !== 'fix') return undefined;
  if (role === 'critic') return pr?.critic ?? [];
  return (taskId === null ? undefined : scenario.tasks[taskId]?.fix) ?? pr?.actor ?? [];
}

function candidateSteps(scenario: Scenario, taskId: string | null, candidate: number | undefined): ScenarioStep[] | undefined {
  if (taskId === null || candidate === undefined) return undefined;
  const steps = (scenario.tasks[taskId]?.candidates ?? scenario.fallback?.candidates)?.[candidate - 1]?.actor;
  return steps?.length ? steps : undefined;
}

function stepsFor(scenario: Scenario, role: AgentRole, taskId: string | null): ScenarioStep[] | undefined {
  if (role === 'planner') return scenario.planner;
  if (taskId === null) return role === 'critic' ? scenario.planReview : undefined;
  const listed = taskId === null ? undefined : scenario.tasks[taskId]?.[role];
  return listed && listed.length > 0 ? listed : scenario.fallback?.[role];
}

/** Why a scripted path is not acceptable, or undefined: scripts must stay inside the worktree. */
export function relativePathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'is empty';
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) return 'is absolute; use a path relative to the working directory';
  if (path.split(/[\\/]/).includes('..')) return 'leaves the working directory (contains "..")';
  return undefined;
}

function formatPath(path: PropertyKey[]): string {
  return path
    .map((part, i) => {
      if (typeof part === 'number') return `[${part}]`;
      const key = String(part);
      if (/^[A-Za-z_$][\w$]*$/.test(key)) return i === 0 ? key : `.${key}`;
      return `[${JSON.stringify(key)}]`;
    })
    .join('');
}
