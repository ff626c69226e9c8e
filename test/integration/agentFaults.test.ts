import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAgentFaults } from '../faults/agentFaults';
import { assertEachFault, formatFaultTable } from '../faults/faultTable';

/**
 * The agent fault campaign (see test/faults/agentFaults.ts): a command agent that crashes,
 * hangs, prints garbage or junk, streams forever, exits 0 with an error payload or ignores
 * SIGTERM, as actor or critic. Every fault must end the task in NEEDS_HUMAN with a reason
 * naming it and the agent's last output, leave no process behind, and exit the CLI with 1.
 */
describe('agent fault campaign', () => {
  it('every misbehaving agent ends in a clear state, keeps its last output and leaves no process', { timeout: 300_000 }, async (t) => {
    const rows = await runAgentFaults();
    assert.ok(rows.length >= 9, formatFaultTable(rows));
    await assertEachFault(t, rows);
  });
});
