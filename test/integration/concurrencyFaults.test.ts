import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runConcurrencyFaults } from '../faults/concurrencyFaults';
import { faultProblems, formatFaultTable } from '../faults/faultTable';

describe('two engines on one workspace', () => {
  it('a second engine is refused clearly and creates nothing; read-only commands work meanwhile', { timeout: 120_000 }, async () => {
    const rows = await runConcurrencyFaults();
    assert.deepEqual(faultProblems(rows), [], formatFaultTable(rows));
    assert.ok(rows.every((r) => r.injected > 0 && r.handled === r.injected), formatFaultTable(rows));
  });
});
