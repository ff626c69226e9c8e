import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parsePlan } from '../../src/engine/plan/parsePlan';
import { PLAN_JSON_SCHEMA_FILE, planJsonSchema } from '../../src/engine/plan/planJsonSchema';

const root = join(__dirname, '..', '..');
const shipped = JSON.parse(readFileSync(join(root, PLAN_JSON_SCHEMA_FILE), 'utf8')) as Record<string, unknown>;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: { jsonValidation: Array<{ fileMatch: string | string[]; url: string }> };
};

describe('the plan JSON schema the editor validates plan files with', () => {
  test('is the one generated from the zod schema approval checks with', () => {
    assert.deepEqual(shipped, planJsonSchema(), `${PLAN_JSON_SCHEMA_FILE} is out of date: run node --import tsx scripts/writePlanSchema.ts`);
  });

  test('is the file package.json names for *.plan.json files', () => {
    const entry = manifest.contributes.jsonValidation.find((v) => v.url === `./${PLAN_JSON_SCHEMA_FILE}`);
    assert.ok(entry, 'jsonValidation names the schema');
    assert.ok([entry.fileMatch].flat().includes('*.plan.json'));
  });

  test('requires what the engine requires and offers what it accepts', () => {
    const plan = shipped as { required: string[]; properties: { tasks: { items: { required: string[]; properties: Record<string, { pattern?: string }> } } } };
    assert.deepEqual(plan.required, ['goal', 'tasks']);
    assert.deepEqual(plan.properties.tasks.items.required, ['id', 'title', 'description']);
    const id = new RegExp(plan.properties.tasks.items.properties.id!.pattern!);
    for (const good of ['api', 'Config-2', 'a.b_c']) {
      assert.ok(id.test(good));
      assert.doesNotThrow(() => parsePlan({ goal: 'g', tasks: [{ id: good, title: 't', description: 'd' }] }));
    }
    assert.ok(!id.test('has space') && !id.test('-dash'));
  });
});
