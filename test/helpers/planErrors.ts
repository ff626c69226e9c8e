import assert from 'node:assert/strict';
import { PlanValidationError } from '../../src/engine/plan/parsePlan';

/** The PlanValidationError `run` throws; fails the test when it throws nothing or something else. */
export function validationError(run: () => unknown): PlanValidationError {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof PlanValidationError, `expected PlanValidationError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the plan to be rejected');
}
