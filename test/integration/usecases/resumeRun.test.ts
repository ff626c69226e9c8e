import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { PlanningError } from '../../../src/engine/run/planner';
import { UnknownRunError } from '../../../src/engine/run/runProvenance';
import type { RunSession } from '../../../src/engine/session/runSession';
import { resumeRun } from '../../../src/engine/usecases/resumeRun';
import { NoRunError, RunBusyError, RunCompletedError, StartAgainError } from '../../../src/engine/usecases/useCaseErrors';
import { runCli, writeInputs } from '../../helpers/cli';
import { green, task, write } from '../../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door, repo } = doorsOfThisFile();

const plan: Plan = { goal: 'resume', tasks: [task('a')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] } } };
const endings = (session: RunSession) => session.state.decisions.filter((d) => d.fact.type === 'run_finished').length;

describe('resumeRun: which runs are resumed, and what happens to one that is not', () => {
  it('started again, not resumed: a plan is rejected only while it is still being planned or waits for approval', async () => {
    const d = await door();
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    const neverDrafted = d.engine.createRun(undefined, waiting.state.config, 'a goal the planner never answered');
    const failed = d.engine.createRun(undefined, waiting.state.config, 'a goal the planner failed');
    d.engine.endFailedPlanning(failed, new PlanningError('the planner answered no plan', 'plan again', [], '{"tasks": []}'));
    const cases = [
      { session: waiting, withPlan: true, why: 'it stopped before its plan was approved, so nothing was built', after: 'cancelled', ends: 1 },
      { session: neverDrafted, withPlan: false, why: 'no plan was drafted', after: 'cancelled', ends: 1 },
      { session: failed, withPlan: false, why: 'planning failed: there is no plan to build', after: 'failed', ends: 1 },
    ];
    for (const c of cases) {
      for (const attempt of [1, 2]) {
        assert.throws(
          () => resumeRun(d, { runId: c.session.runId }),
          (error: unknown) => {
            assert.ok(error instanceof StartAgainError, String(error));
            assert.equal(error.code, 'start_again');
            assert.equal(error.message, `Run ${c.session.runId} cannot be resumed: ${c.why}`);
            assert.equal(error.withPlan, c.withPlan);
            return true;
          },
          `${c.why}, attempt ${attempt}`,
        );
        assert.equal(c.session.state.status, c.after, c.why);
        assert.equal(endings(c.session), c.ends, `${c.why}: how it ended is recorded once, never rewritten`);
      }
    }
    assert.match(waiting.state.finishedSummary ?? '', /stopped before its plan was approved/);
    assert.equal(failed.state.finishedSummary, 'the planner answered no plan. plan again', 'a failed planning keeps its own reason');
  });

  it('refuses a completed run, and says when no run is left to resume', async () => {
    const d = await door();
    assert.throws(() => resumeRun(d, {}), (error: unknown) => error instanceof NoRunError && error.code === 'no_run' && /no unfinished run to resume/.test(error.message));
    const session = scriptedRun(d, plan, scenario);
    assert.equal(await driveToEnd(d, session), 'completed');
    assert.throws(() => resumeRun(d, { runId: session.runId }), (error: unknown) => error instanceof RunCompletedError && error.code === 'run_completed');
    assert.throws(() => resumeRun(d, {}), NoRunError, 'the completed run is not "the last unfinished one"');
  });

  it('refuses a run its door plans or drives in the background right now, before touching it', async () => {
    const d = await door({ backgroundWork: () => 'planning' });
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    assert.throws(() => resumeRun(d, { runId: waiting.runId }), (error: unknown) => error instanceof RunBusyError && error.code === 'run_busy' && /still being planned/.test(error.message));
    assert.equal(waiting.state.status, 'planning', 'the plan being drafted was left alone');
  });

  it('resumes the newest unfinished run, keeping its green work, and the door drives it to the end', async () => {
    const d = await door();
    // The first actor call hits a quota: the run pauses, resumable.
    const session = scriptedRun(d, { goal: 'paused', tasks: [task('a'), task('b')] }, {
      tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [{ quota: true, delayMs: 0 }, write({ 'b.txt': 'b\n' })], critic: [green] } },
    }, { settings: { maxParallel: 1 } });
    assert.equal(await driveToEnd(d, session), 'paused');
    assert.equal(session.task('a').state, 'MERGED');
    const ready = resumeRun(d, {});
    assert.equal(ready.session.runId, session.runId);
    const resumed = ready.session.state.decisions.at(-1)?.fact;
    assert.equal(resumed?.type === 'run_resumed' && resumed.reason, 'resumed (was paused)');
    assert.equal(await driveToEnd(d, ready.session), 'completed');
    assert.equal(session.task('a').attempt, 1, 'the merged task was not built again');
  });

  it('asks for trust before it drives a run not started here: UnknownRunError with what would run, then resumed with trustRun', async () => {
    const r = repo();
    // Created by the CLI under another user's record of runs: a stranger's run to this one.
    const elsewhere = mkdtempSync(join(tmpdir(), 'taskloom-elsewhere-'));
    after(() => rmSync(elsewhere, { recursive: true, force: true }));
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': { tasks: { a: { actor: [{ quota: true, delayMs: 0 }, write({ 'a.txt': 'a\n' })], critic: [green] } } } });
    const first = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true'], { env: { TASKLOOM_STATE_DIR: elsewhere } });
    assert.equal(first.code, 1, first.stdout + first.stderr);
    const d = await door({}, r.dir);
    let refused: UnknownRunError | undefined;
    assert.throws(() => resumeRun(d, {}), (error: unknown) => {
      refused = error as UnknownRunError;
      return error instanceof UnknownRunError && error.code === 'unknown_run';
    });
    assert.ok(refused!.whatWouldRun.includes('gate command: true'), refused!.whatWouldRun.join('\n'));
    const runId = refused!.runId;
    assert.equal(d.session(runId).state.status, 'paused', 'a refused resume changed nothing');
    const ready = resumeRun(d, { trustRun: true });
    assert.equal(await driveToEnd(d, ready.session), 'completed');
    assert.equal(d.engine.isKnownRun(ready.session), true, 'a trusted run is known from then on');
  });
});
