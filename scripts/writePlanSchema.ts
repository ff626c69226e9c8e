// Writes the plan's JSON schema, generated from the engine's zod schema, where package.json's
// `jsonValidation` points. Run after changing src/engine/plan/planSchema.ts:
//   node --import tsx scripts/writePlanSchema.ts
// test/unit/planJsonSchema.test.ts fails while the shipped file differs from the generated one.
import { writeFileSync } from 'node:fs';
import { PLAN_JSON_SCHEMA_FILE, planJsonSchema } from '../src/engine/plan/planJsonSchema';

writeFileSync(PLAN_JSON_SCHEMA_FILE, `${JSON.stringify(planJsonSchema(), null, 2)}\n`);
console.log(`wrote ${PLAN_JSON_SCHEMA_FILE}`);
