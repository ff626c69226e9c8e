import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTable, runCampaign } from '../faults/killCampaign';

/**
 * The reduced form of `npm run test:faults`: a kill point in each part of a run (start, gate,
 * review, between tasks, merge queue, conflict resolution, among a task's candidates) and one double kill, each SIGKILLed
 * by a watcher at the exact event, resumed, and compared with an uninterrupted run of the same
 * plan (gate failure, changes required, merge conflicts resolved). TASKLOOM_FAULT_POINTS sets how many.
 */
describe('kill campaign (reduced)', () => {
  it('every killed and resumed run ends like the uninterrupted one', { timeout: 600_000 }, async (t) => {
    const points = Number(process.env.TASKLOOM_FAULT_POINTS ?? 8);
    const c = await runCampaign({ points, delayMs: 20, concurrency: 2 });
    const table = formatTable(c);
    assert.ok(c.results.length > 0, 'no kill point was chosen');
    // One subtest per kill point: a failure names its point, and the others still report.
    for (const result of c.results) {
      await t.test(result.point.name, () => {
        assert.ok(result.reached, `the kill point was not reached\n${table}`);
        assert.ok(result.identical, `${result.problems.join('; ')} (repo: ${result.dir})\n${table}`);
      });
    }
  });
});
