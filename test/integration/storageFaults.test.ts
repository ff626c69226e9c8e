import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { faultProblems, formatFaultTable } from '../faults/faultTable';
import { runStorageFaults } from '../faults/storageFaults';

/**
 * The storage part of the fault campaign: a torn or garbage last line in events.jsonl,
 * state.json corrupt, of the wrong shape, deleted or lying about its seq, the derived files
 * deleted, and the disk filling up while an event is appended (a small tmpfs, so this needs
 * root; otherwise that row reports it was not run). Each is resumed and compared with an
 * uninterrupted run of the same plan.
 */
describe('storage faults', () => {
  it('every storage fault is reported, loses no durable event, and the run resumes to the same end', { timeout: 600_000 }, async () => {
    const rows = await runStorageFaults();
    const problems = faultProblems(rows);
    assert.equal(problems.length, 0, `${formatFaultTable(rows)}\n${problems.map((p) => `- ${p}`).join('\n')}`);
    assert.ok(rows.every((r) => r.injected > 0 && r.handled === r.injected), formatFaultTable(rows));
  });
});
