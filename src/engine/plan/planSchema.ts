import { z } from 'zod';
import type { Plan } from '../domain/plan';

/**
 * A task id becomes part of a git branch (`taskloom/<run>/<task>`) and of a worktree folder,
 * so it must be safe for both on every platform and in every shell.
 */
export const TASK_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,47}$/i;
export const TASK_ID_MAX_LENGTH = 48;
/** `integration` is the run's own branch, so no task may take its name. */
export const RESERVED_TASK_IDS: readonly string[] = ['integration'];

/** Why `id` cannot be used as a branch and path name; empty when it can. */
export function taskIdProblems(id: string): string[] {
  const problems: string[] = [];
  if (id.length > TASK_ID_MAX_LENGTH) problems.push(`is ${id.length} characters long (at most ${TASK_ID_MAX_LENGTH})`);
  if (/\s/.test(id)) problems.push('contains whitespace');
  if (/[/\\]/.test(id)) problems.push('contains a slash');
  const others = [...new Set(id.replace(/[a-z0-9._\-\s/\\]/gi, ''))];
  if (others.length > 0) problems.push(`contains ${others.map((c) => JSON.stringify(c)).join(', ')}`);
  if (id.length > 0 && !/^[a-z0-9]/i.test(id)) problems.push('must start with a letter or digit');
  if (id.includes('..')) problems.push('contains ".."');
  if (/\.lock$/i.test(id)) problems.push('ends with ".lock"');
  else if (id.endsWith('.')) problems.push('ends with "."');
  if (RESERVED_TASK_IDS.includes(id.toLowerCase())) problems.push('is reserved for the run\'s integration branch');
  // The checks above name the reason; the pattern is the contract, so it has the last word.
  if (problems.length === 0 && !TASK_ID_PATTERN.test(id)) problems.push(`does not match ${TASK_ID_PATTERN}`);
  return problems;
}

const describeInput = (input: unknown): string =>
  input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input === 'object' ? 'an object' : typeof input;

const text = () =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : `must be a string, not ${describeInput(iss.input)}`) })
    .trim()
    .min(1, { error: 'must not be empty' });

const textList = () =>
  z.array(text(), { error: (iss) => `must be a list of strings, not ${describeInput(iss.input)}` });

const uniq = (values: string[]): string[] => [...new Set(values)];

export const TaskIdSchema = text().superRefine((id, ctx) => {
  const problems = taskIdProblems(id);
  if (problems.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(id)} is not usable as a branch or folder name: ${problems.join(', ')}`,
    });
  }
});

export const PlanTaskSchema = z.object(
  {
    id: TaskIdSchema,
    title: text(),
    description: text(),
    acceptance: textList().default([]),
    dependsOn: textList().default([]).transform(uniq),
    files: textList().transform(uniq).optional(),
  },
  { error: (iss) => `must be a task object, not ${describeInput(iss.input)}` },
);

export const PlanSchema = z.object(
  {
    goal: text(),
    rationale: z
      .string({ error: (iss) => `must be a string, not ${describeInput(iss.input)}` })
      .trim()
      .optional(),
    tasks: z
      .array(PlanTaskSchema, {
        error: (iss) => (iss.input === undefined ? 'is required' : `must be a list of tasks, not ${describeInput(iss.input)}`),
      })
      .min(1, { error: 'a plan needs at least one task' }),
  },
  { error: (iss) => `a plan must be an object with "goal" and "tasks", not ${describeInput(iss.input)}` },
  // An empty rationale says nothing; dropping the key keeps `rationale` either useful or absent.
).transform(({ rationale, ...plan }) => (rationale ? { ...plan, rationale } : plan));

// Compile-time proof that what the schema produces is a domain Plan.
export type ParsedPlan = z.output<typeof PlanSchema>;
const _planShapeMatches: (p: ParsedPlan) => Plan = (p) => p;
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
