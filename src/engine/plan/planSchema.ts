import * as z from 'zod';
import type { Plan } from '../domain/plan';
import { ID_MAX_LENGTH, idPattern, isSafeId } from '../domain/ids';
import { AGENT_KINDS, type AgentKind } from '../domain/runConfig';
import { MAX_CANDIDATES } from '../domain/candidates';
import { stripTerminalControls } from '../text/terminalText';

/**
 * A task id becomes part of a git branch (`taskloom/<run>/<task>`) and of a worktree folder,
 * so it must be safe for both on every platform and in every shell.
 */
const TASK_ID_MAX_LENGTH = ID_MAX_LENGTH.task;
/** `integration` is the run's own branch, so no task may take its name. */
export const RESERVED_TASK_IDS: readonly string[] = ['integration'];
/** Names Windows will not create as a file or folder, with or without an extension. */
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * Size limits, so a runaway planner or a hostile plan file gets a clear error instead of a run
 * of thousands of tasks or megabytes of text copied into every prompt, log line and view.
 */
export const PLAN_LIMITS = {
  tasks: 1000,
  goal: 20_000,
  rationale: 50_000,
  title: 300,
  description: 50_000,
  /** One acceptance criterion or one file path. */
  listItem: 2_000,
  /** Entries in one task's acceptance, dependsOn or files list. */
  listLength: 200,
} as const;

/**
 * A value quoted for a message: JSON-quoted, anything outside printable ASCII as a `\uXXXX`
 * escape (a bidi override or a zero-width character must show as what it is, not reorder or
 * hide text in a terminal), and cut short when long.
 */
export function quoteForMessage(value: string, max = 64): string {
  const shown = value.length > max ? value.slice(0, max) : value;
  const quoted = JSON.stringify(shown).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return value.length > max ? `${quoted.slice(0, -1)}…" (${value.length} characters)` : quoted;
}

/** Why `id` cannot be used as a branch and path name; empty when it can. */
export function taskIdProblems(id: string): string[] {
  const problems: string[] = [];
  if (id.length > TASK_ID_MAX_LENGTH) problems.push(`is ${id.length} characters long (at most ${TASK_ID_MAX_LENGTH})`);
  if (/\s/.test(id)) problems.push('contains whitespace');
  if (/[/\\]/.test(id)) problems.push('contains a slash');
  const others = [...new Set(id.replace(/[a-z0-9._\-\s/\\]/gi, ''))];
  if (others.length > 0) {
    const listed = others.slice(0, 10).map((c) => quoteForMessage(c));
    problems.push(`contains ${listed.join(', ')}${others.length > 10 ? ` and ${others.length - 10} other characters` : ''}`);
  }
  if (id.length > 0 && !/^[a-z0-9]/i.test(id)) problems.push('must start with a letter or digit');
  if (id.includes('..')) problems.push('contains ".."');
  if (/\.lock$/i.test(id)) problems.push('ends with ".lock"');
  else if (id.endsWith('.')) problems.push('ends with "."');
  if (RESERVED_TASK_IDS.includes(id.toLowerCase())) problems.push('is reserved for the run\'s integration branch');
  if (WINDOWS_DEVICE_NAME.test(id)) problems.push('is a device name Windows cannot use as a folder');
  // The checks above name the reason; the id rule is the contract, so it has the last word.
  if (problems.length === 0 && !isSafeId(id, 'task')) problems.push(`does not match ${idPattern('task')}`);
  return problems;
}

const describeInput = (input: unknown): string =>
  input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input === 'object' ? 'an object' : typeof input;

const tooLong = (max: number) => ({
  error: (iss: { input?: unknown }) => `is ${typeof iss.input === 'string' ? iss.input.length : 'more than ' + max} characters long (at most ${max})`,
});

/**
 * Required text, trimmed. Prose (`inert`) also loses terminal escapes, control characters and
 * bidi overrides: a plan never needs them, and they would reach terminals, prompts and views.
 * Ids are not cleaned: one that holds such characters is rejected rather than silently changed.
 */
const text = (max: number, inert = true) => {
  const base = z.string({ error: (iss) => (iss.input === undefined ? 'is required' : `must be a string, not ${describeInput(iss.input)}`) });
  return (inert ? base.overwrite(stripTerminalControls) : base).trim().min(1, { error: 'must not be empty' }).max(max, tooLong(max));
};

const textList = (max: number, inert = true) =>
  z
    .array(text(max, inert), { error: (iss) => `must be a list of strings, not ${describeInput(iss.input)}` })
    .max(PLAN_LIMITS.listLength, { error: `has more than ${PLAN_LIMITS.listLength} entries` });

const uniq = (values: string[]): string[] => [...new Set(values)];

// No max(): taskIdProblems reports the length together with the other reasons.
export const TaskIdSchema = text(Number.MAX_SAFE_INTEGER, false)
  .superRefine((id, ctx) => {
    const problems = taskIdProblems(id);
    if (problems.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${quoteForMessage(id)} is not usable as a branch or folder name: ${problems.join(', ')}`,
      });
    }
  })
  // What the JSON schema says instead of the refinement above: the same pattern, without the `i` flag JSON schema lacks.
  .meta({
    description: 'Short id, part of the task\'s branch and worktree folder: letters, digits, ".", "_" and "-", starting with a letter or digit.',
    pattern: idPattern('task').source,
    maxLength: TASK_ID_MAX_LENGTH,
  });

export const PlanTaskSchema = z.object(
  {
    id: TaskIdSchema,
    title: text(PLAN_LIMITS.title).meta({ description: 'What the task does, in a line.' }),
    description: text(PLAN_LIMITS.description).meta({ description: 'What the actor is to build, in enough detail to do it.' }),
    acceptance: textList(PLAN_LIMITS.listItem).default([]).meta({ description: 'Criteria the critic checks the diff against.' }),
    dependsOn: textList(PLAN_LIMITS.listItem, false)
      .default([])
      .transform(uniq)
      .meta({ description: 'Ids of the tasks this one builds on: it starts from their merged work.' }),
    files: textList(PLAN_LIMITS.listItem)
      .transform(uniq)
      .optional()
      .meta({ description: 'Files the task is likely to touch; tasks that share files do not run side by side.' }),
    sensitive: textList(PLAN_LIMITS.listItem)
      .transform(uniq)
      .optional()
      .meta({
        description:
          'Sensitive paths (CI, agent and editor configuration, git hooks, package lifecycle scripts, .worktreeinclude) the task is meant to change, as paths or glob patterns. Once you approve the plan, those changes do not wait for you again.',
      }),
    agent: z
      .enum(AGENT_KINDS as [AgentKind, ...AgentKind[]], { error: (iss) => `must be one of ${AGENT_KINDS.join(', ')}, not ${quoteForMessage(String(iss.input))}` })
      .optional()
      .meta({ description: "This task's own actor agent (else the run's)." }),
    model: text(PLAN_LIMITS.title).optional().meta({ description: "This task's own actor model (else the run's)." }),
    candidates: z
      .number({ error: (iss) => `must be a whole number from 1 to ${MAX_CANDIDATES}, not ${describeInput(iss.input)}` })
      .int({ error: `must be a whole number from 1 to ${MAX_CANDIDATES}` })
      .min(1, { error: `must be a whole number from 1 to ${MAX_CANDIDATES}` })
      .max(MAX_CANDIDATES, { error: `must be a whole number from 1 to ${MAX_CANDIDATES}` })
      .optional()
      .meta({ description: 'How many candidates of this task run at once; the critic picks the best of those that pass the gate (else the run\'s number).' }),
  },
  { error: (iss) => `must be a task object, not ${describeInput(iss.input)}` },
);

/**
 * Title and description as a planner's draft may leave them: empty (or missing) is kept as '',
 * a finding on that task for a person to fill in (domain/planFindings.ts), not a reason to throw
 * away the whole plan. Everything else is checked as strictly as in a plan that can run.
 */
const fillable = (max: number) =>
  z
    .string({ error: (iss) => `must be a string, not ${describeInput(iss.input)}` })
    .overwrite(stripTerminalControls)
    .trim()
    .max(max, tooLong(max))
    .default('');

const DraftPlanTaskSchema = PlanTaskSchema.extend({ title: fillable(PLAN_LIMITS.title), description: fillable(PLAN_LIMITS.description) });

const planSchemaOf = (task: typeof PlanTaskSchema | typeof DraftPlanTaskSchema) => z.object(
  {
    goal: text(PLAN_LIMITS.goal).meta({ description: 'What the run is to achieve.' }),
    rationale: z
      .string({ error: (iss) => `must be a string, not ${describeInput(iss.input)}` })
      .overwrite(stripTerminalControls)
      .trim()
      .max(PLAN_LIMITS.rationale, tooLong(PLAN_LIMITS.rationale))
      .optional()
      .meta({ description: 'Why the plan is shaped this way (optional).' }),
    tasks: z
      .array(task, {
        error: (iss) => (iss.input === undefined ? 'is required' : `must be a list of tasks, not ${describeInput(iss.input)}`),
      })
      .min(1, { error: 'a plan needs at least one task' })
      .max(PLAN_LIMITS.tasks, {
        error: (iss) =>
          `has ${Array.isArray(iss.input) ? iss.input.length : 'too many'} tasks; a plan has at most ${PLAN_LIMITS.tasks} (split the goal into several runs)`,
      }),
  },
  { error: (iss) => `a plan must be an object with "goal" and "tasks", not ${describeInput(iss.input)}` },
  // An empty rationale says nothing; dropping the key keeps `rationale` either useful or absent.
).transform(({ rationale, ...plan }) => (rationale ? { ...plan, rationale } : plan));

/** A plan that can run: every task complete. */
export const PlanSchema = planSchemaOf(PlanTaskSchema);
/** A plan for review: a task's title or description may be empty, for a person to fill in. */
export const DraftPlanSchema = planSchemaOf(DraftPlanTaskSchema);

// Compile-time proof that what the schema produces is a domain Plan.
export type ParsedPlan = z.output<typeof PlanSchema>;
const _planShapeMatches: (p: ParsedPlan | z.output<typeof DraftPlanSchema>) => Plan = (p) => p;
void _planShapeMatches;

/**
 * Just enough of the input to check the graph when the strict parse fails elsewhere, so
 * duplicate ids, unknown dependencies and cycles are reported in the same pass as a missing title.
 */
export const LooseGraphTaskSchema = z.object({
  id: z.string().trim().min(1).optional().catch(undefined),
  dependsOn: z
    .array(z.string().trim().min(1).optional().catch(undefined))
    .optional()
    .catch(undefined),
});
export const LooseGraphSchema = z.object({ tasks: z.array(z.unknown()).catch([]) }).catch({ tasks: [] });
