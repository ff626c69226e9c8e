import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { RunNotFoundError } from '../../../src/engine/store/runStore';
import { TaskloomEngine } from '../../../src/engine/run/engine';
import { getRun, listRuns } from '../../../src/engine/usecases/readRuns';
import { traceRun } from '../../../src/engine/usecases/traceRun';
import { NoRunError } from '../../../src/engine/usecases/useCaseErrors';
import { runCli, writeInputs } from '../../helpers/cli';
import { green, task, write } from '../../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../../helpers/tempRepo';
import { driveToEnd, openDoor, scriptedRun } from '../../helpers/useCaseDoor';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const plan: Plan = { goal: 'read me', tasks: [task('a'), task('b')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [{ fail: 'no', delayMs: 0 }] } } };

/** A read-only engine, as `runs` and `trace` open it: it takes no lock. */
async function reader(dir: string): Promise<TaskloomEngine> {
  const engine = await TaskloomEngine.open(dir, { command: 'use case test', readOnly: true });
  after(() => engine.close());
  return engine;
}

describe('reading runs: list, get, trace', () => {
  it('says there is no run yet, and names a run that is not here', async () => {
    const r = makeTempRepo();
    repos.push(r);
    const { store } = await reader(r.dir);
    assert.deepEqual(listRuns(store), { runs: [], driven: false, warnings: [] });
    assert.throws(() => getRun(store, {}), NoRunError);
    assert.throws(() => traceRun(store, {}), NoRunError);
    assert.throws(() => traceRun(store, { runId: 'no-such-run' }), (error: unknown) => error instanceof RunNotFoundError && error.code === 'run_not_found');
  });

  it('lists the runs newest first with their counts, whose they are, and a run whose log is broken with a warning', async () => {
    const r = makeTempRepo();
    repos.push(r);
    // One run created under another user's record of runs, then one of ours that needs a person.
    const elsewhere = mkdtempSync(join(tmpdir(), 'taskloom-elsewhere-'));
    after(() => rmSync(elsewhere, { recursive: true, force: true }));
    const inputs = writeInputs({ 'plan.json': { goal: 'theirs', tasks: [task('x')] }, 'scenario.json': { tasks: { x: { actor: [write({ 'x.txt': 'x\n' })], critic: [green] } } } });
    assert.equal(runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true'], { env: { TASKLOOM_STATE_DIR: elsewhere } }).code, 0);
    const d = await openDoor(r.dir);
    const ours = scriptedRun(d, plan, scenario);
    assert.equal(await driveToEnd(d, ours), 'needs_human');
    d.close();

    const { store } = await reader(r.dir);
    const listing = listRuns(store);
    assert.equal(listing.driven, false, 'nothing holds the workspace lock');
    assert.deepEqual(
      listing.runs.map((x) => [x.goal, x.status, x.merged, x.skipped, x.total, x.foreign, x.planApproved, x.state?.runId === x.runId]),
      [
        ['read me', 'needs_human', 1, 0, 2, false, true, true],
        ['theirs', 'completed', 1, 0, 1, true, true, true],
      ],
    );
    assert.equal(getRun(store, {}).runId, ours.runId, 'the newest by default');

    const trace = traceRun(store, {});
    assert.equal(trace.report.runId, ours.runId);
    assert.deepEqual([trace.live, trace.phase], [false, 'needs_human']);
    assert.deepEqual(trace.report.tasks.map((t) => [t.id, t.state]), [['a', 'MERGED'], ['b', 'NEEDS_HUMAN']]);

    appendFileSync(join(r.dir, '.taskloom', 'runs', ours.runId, 'events.jsonl'), '{"seq": "not an event"}\n');
    const broken = listRuns((await reader(r.dir)).store);
    assert.deepEqual(broken.runs.map((x) => x.goal), ['read me', 'theirs'], 'a run whose log does not load is still listed');
    assert.ok(broken.warnings.length > 0, 'and the listing says why');
  });
});
