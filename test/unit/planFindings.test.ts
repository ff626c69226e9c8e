import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyPlanTaskFix, dependentsOf, planTaskFindings } from '../../src/engine/domain/planFindings';
import { PlanValidationError, parsePlanDraft } from '../../src/engine/plan/parsePlan';
import { planFindingsSentence } from '../../src/engine/text/planFindingWords';

const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, title: `Title of ${id}`, description: `Do ${id}`, dependsOn: [], ...extra });

describe('a draft plan keeps a task a person can finish', () => {
  test('an empty or missing description or title is kept as a finding on that task; the other tasks stand', () => {
    const draft = parsePlanDraft({
      goal: 'g',
      tasks: [task('a'), task('b', { description: ' \u001b[31m ', dependsOn: ['a'] }), { id: 'c', description: 'Do c' }],
    });
    assert.deepEqual(draft.tasks.map((t) => [t.id, t.title, t.description]), [['a', 'Title of a', 'Do a'], ['b', 'Title of b', ''], ['c', '', 'Do c']]);
    assert.deepEqual(planTaskFindings(draft), [{ taskId: 'b', field: 'description' }, { taskId: 'c', field: 'title' }]);
    assert.equal(planFindingsSentence(planTaskFindings(draft)), 'task "b" has no description; task "c" has no title');
  });

  test('what no person fills in is still a reason to reject the plan: an unknown dependency, a bad id, a description of the wrong type', () => {
    assert.throws(
      () => parsePlanDraft({ goal: 'g', tasks: [task('a', { dependsOn: ['ghost'] }), task('b c'), task('d', { description: 7 })] }),
      (error: unknown) =>
        error instanceof PlanValidationError &&
        error.problems.length === 3 &&
        error.problems.some((p) => /unknown task "ghost"/.test(p)) &&
        error.problems.some((p) => /description.*must be a string, not number/.test(p)),
    );
  });

  test('filling a task in ends its finding; dropping it takes it out of what depended on it', () => {
    const draft = parsePlanDraft({ goal: 'g', tasks: [task('a'), task('b', { description: '', dependsOn: ['a'] }), task('c', { dependsOn: ['a', 'b'] })] });
    const filled = applyPlanTaskFix(draft, { taskId: 'b', fill: { field: 'description', text: 'Do b' } });
    assert.deepEqual(planTaskFindings(filled), []);
    assert.deepEqual(dependentsOf(draft, 'b'), ['c']);
    const dropped = applyPlanTaskFix(draft, { taskId: 'b', drop: true });
    assert.deepEqual(dropped.tasks.map((t) => [t.id, t.dependsOn]), [['a', []], ['c', ['a']]]);
    assert.deepEqual(planTaskFindings(dropped), []);
    assert.equal(draft.tasks.length, 3, 'the plan it was given is left as it was');
  });
});
