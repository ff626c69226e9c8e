import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventOf } from '../../../src/engine/domain/events';
import { formatClock } from '../../../src/engine/text/clock';
import { gateOutputText } from '../../../src/extension/documents/gateOutputText';

const gate = (at: Date): EventOf<'gate_result'> => ({
  seq: 7,
  runId: 'r',
  at: at.toISOString(),
  type: 'gate_result',
  taskId: 'word-count',
  attempt: 2,
  passed: false,
  commands: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 812, output: 'not ok 1 - counts words' }],
});

describe('gate output document', () => {
  it('says when the gate ran in local time, as the ledger entry it opens from, not as a UTC ISO timestamp', () => {
    const at = new Date(2026, 11, 2, 14, 3, 27);
    const text = gateOutputText(gate(at), at);
    assert.equal(text.split('\n')[0], 'Gate failed (task word-count, attempt 2) at 14:03:27');
    assert.ok(!text.includes(at.toISOString()));
    assert.match(text, /\$ npm test {2}→ exit 1 in 812 ms\nnot ok 1 - counts words/);
  });

  it('a gate of another day carries its date, as the ledger says it', () => {
    const at = new Date(2026, 11, 1, 9, 5, 0);
    assert.equal(formatClock(at.toISOString(), new Date(2026, 11, 2, 10, 0, 0)), '2026-12-01 09:05:00');
    assert.match(gateOutputText(gate(at), new Date(2026, 11, 2)), /^Gate failed \(task word-count, attempt 2\) at 2026-12-01 09:05:00\n/);
  });
});
