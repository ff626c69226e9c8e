import * as z from 'zod';
import { PlanSchema } from './planSchema';

/** Where the extension ships the plan's JSON schema (package.json `jsonValidation` names it). */
export const PLAN_JSON_SCHEMA_FILE = 'schemas/plan.schema.json';

/**
 * The JSON schema of a plan file, generated from the zod schema approval checks with, so the
 * editor's completions and squiggles never disagree with the engine. It describes what a file
 * may hold (zod's input side); rules a schema cannot say (ids that clash, cycles) stay the engine's.
 */
export function planJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PlanSchema, { io: 'input', unrepresentable: 'any', target: 'draft-7' });
  return { ...schema, title: 'Taskloom plan', description: 'A Taskloom plan: the goal and its tasks, as a run started from a plan file and Edit Plan read it.' };
}
