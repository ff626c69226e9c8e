import { describe, it } from 'node:test';
import { assertEachFault } from '../faults/faultTable';
import { runStorageFaults } from '../faults/storageFaults';

/**
 * The storage part of the fault campaign: a torn or garbage last line in events.jsonl,
 * state.json corrupt, of the wrong shape, deleted or lying about its seq, the derived files
 * deleted, and the disk filling up while an event is appended (a small tmpfs, so this needs
 * root; otherwise that row reports it was not run). Each is resumed and compared with an
 * uninterrupted run of the same plan.
 */
describe('storage faults', () => {
  it('every storage fault is reported, loses no durable event, and the run resumes to the same end', { timeout: 600_000 }, async (t) => {
    await assertEachFault(t, await runStorageFaults());
  });
});
