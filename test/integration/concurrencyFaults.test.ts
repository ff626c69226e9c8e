import { describe, it } from 'node:test';
import { runConcurrencyFaults } from '../faults/concurrencyFaults';
import { assertEachFault } from '../faults/faultTable';

describe('two engines on one workspace', () => {
  it('a second engine is refused clearly and creates nothing; read-only commands work meanwhile', { timeout: 120_000 }, async (t) => {
    await assertEachFault(t, await runConcurrencyFaults());
  });
});
