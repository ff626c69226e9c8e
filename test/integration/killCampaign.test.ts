import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTable, runCampaign } from '../faults/killCampaign';

/**
 * The reduced form of `npm run test:faults`: a kill point in each part of a run (start, gate,
 * merge queue, conflict resolution) and one double kill, each resumed and compared with an
 * uninterrupted run of the same plan (gate failure, changes required, merge conflicts resolved).
 * TASKLOOM_FAULT_POINTS sets how many.
 */
describe('kill campaign (reduced)', () => {
  it('every killed and resumed run ends like the uninterrupted one', { timeout: 600_000 }, async () => {
    const points = Number(process.env.TASKLOOM_FAULT_POINTS ?? 5);
    const c = await runCampaign({ points, delayMs: 20, concurrency: 2 });
    const failures = c.results.filter((r) => !r.identical);
    assert.equal(
      failures.length,
      0,
      `${formatTable(c)}\n${failures.map((f) => `- ${f.point.name}: ${f.problems.join('; ')} (repo: ${f.dir})`).join('\n')}`,
    );
    assert.ok(c.results.every((r) => r.reached), 'every kill point was reached');
  });
});
