import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { HumanDecisionError } from '../../../src/engine/domain/humanActions';
import { UnknownRunError } from '../../../src/engine/run/runProvenance';
import type { RunSession } from '../../../src/engine/session/runSession';
import { decideTask } from '../../../src/engine/usecases/decideTask';
import type { FrontDoor } from '../../../src/engine/usecases/frontDoor';
import { RunBusyError, UnknownTaskError } from '../../../src/engine/usecases/useCaseErrors';
import { runCli, writeInputs } from '../../helpers/cli';
import { green, task, write } from '../../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door, repo } = doorsOfThisFile();

/** A run whose only task `a` failed its first attempt and needs a person (it writes its file on the second). */
async function needsYou(d: FrontDoor): Promise<RunSession> {
  const plan: Plan = { goal: 'needs you', tasks: [task('a')] };
  const session = scriptedRun(d, plan, { tasks: { a: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'a.txt': 'a\n' })], critic: [green] } } });
  assert.equal(await driveToEnd(d, session), 'needs_human');
  return session;
}

const lastSeq = (session: RunSession) => session.state.lastSeq;

describe('decideTask: one decision for every front door', () => {
  it('retries with the note trimmed, makes the run ready to drive, and the door drives it to the end', async () => {
    const d = await door();
    const session = await needsYou(d);
    const decided = await decideTask(d, { taskId: 'a', action: 'retry', note: '  write a.txt this time \n' });
    assert.equal(decided.kind, 'readyToDrive');
    const facts = session.state.decisions.map((x) => x.fact);
    assert.ok(facts.some((f) => f.type === 'human_decision' && f.action === 'retry' && f.note === 'write a.txt this time'), JSON.stringify(facts.at(-3)));
    assert.ok(facts.some((f) => f.type === 'run_resumed' && f.reason === 'human chose to retry "a"'));
    assert.equal(decided.kind === 'readyToDrive' && decided.resumesCancelledRun, undefined, 'the run was not cancelled');
    assert.equal(await driveToEnd(d, session), 'completed');
  });

  it('refuses an unknown task, and a decision the task does not allow, recording nothing', async () => {
    const d = await door();
    const session = await needsYou(d);
    const seq = lastSeq(session);
    await assert.rejects(decideTask(d, { runId: session.runId, taskId: 'ghost', action: 'skip' }), (error: unknown) => {
      assert.ok(error instanceof UnknownTaskError, String(error));
      assert.equal(error.code, 'unknown_task');
      assert.equal(error.message, `Run ${session.runId} has no task "ghost"`);
      assert.equal(error.hint, 'Its tasks: a.');
      return true;
    });
    await assert.rejects(decideTask(d, { taskId: 'a', action: 'continue' }), (error: unknown) => error instanceof HumanDecisionError && error.code === 'decision_refused');
    await assert.rejects(decideTask(d, { taskId: 'a', action: 'resolve' }), (error: unknown) => error instanceof HumanDecisionError && /cannot be resolved by hand now/.test(error.message));
    assert.equal(lastSeq(session), seq);
  });

  it('says that a decision on a cancelled run resumes it, with which other cancelled tasks', async () => {
    const d = await door();
    const plan: Plan = { goal: 'cancelled', tasks: [task('a'), task('b')] };
    const session = scriptedRun(d, plan, { tasks: { a: { actor: [{ hang: true }, write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] } } }, { settings: { maxParallel: 1 } });
    // Cancelled (as Ctrl-C or the editor's Cancel do) once a's agent is at work.
    const controller = new AbortController();
    session.onEvent((event) => {
      if (event.type === 'agent_transcript' && event.lines.some((l) => /scripted actor started/.test(JSON.stringify(l)))) controller.abort();
    });
    assert.equal(await d.engine.drive(session, controller.signal), 'cancelled');
    assert.deepEqual([session.task('a').state, session.task('b').state], ['CANCELLED', 'CANCELLED']);
    const decided = await decideTask(d, { taskId: 'a', action: 'retry' });
    assert.deepEqual(decided.kind === 'readyToDrive' && decided.resumesCancelledRun, { alsoTakenUp: ['b'] });
    assert.equal(await driveToEnd(d, session), 'completed');
  });

  it('leaves a run its door drives in the background to that drive, and refuses one it plans', async () => {
    const r = repo();
    const first = await door({}, r.dir);
    const session = await needsYou(first);
    first.close();
    let takenUp = 0;
    const driving = await door(
      {
        backgroundWork: () => 'driving',
        takeUpInDrive: () => {
          takenUp += 1;
          return true;
        },
      },
      r.dir,
    );
    const seq = driving.session(session.runId).state.lastSeq;
    assert.deepEqual(await decideTask(driving, { taskId: 'a', action: 'skip' }), { kind: 'takenUpByDrive' });
    assert.equal(takenUp, 1);
    const types = driving.engine.store.events(session.runId).events.filter((e) => e.seq > seq).map((e) => e.type);
    assert.deepEqual(types, ['human_decision', 'task_transition'], 'recorded, and no resume of its own: the drive goes on');
    driving.close();
    const planning = await door({ backgroundWork: () => 'planning' }, r.dir);
    await assert.rejects(decideTask(planning, { taskId: 'a', action: 'retry' }), RunBusyError);
  });

  it('asks for trust before it drives a run not started here; resolving by hand asks none (it runs nothing of the run)', async () => {
    const r = repo();
    const elsewhere = mkdtempSync(join(tmpdir(), 'taskloom-elsewhere-'));
    after(() => rmSync(elsewhere, { recursive: true, force: true }));
    const inputs = writeInputs({ 'plan.json': { goal: 'foreign', tasks: [task('a')] }, 'scenario.json': { tasks: { a: { actor: [{ fail: 'no', delayMs: 0 }, write({ 'a.txt': 'a\n' })], critic: [green] } } } });
    assert.equal(runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true'], { env: { TASKLOOM_STATE_DIR: elsewhere } }).code, 1);
    const d = await door({}, r.dir);
    const runId = d.engine.store.lastRunId()!;
    const seq = d.session(runId).state.lastSeq;
    await assert.rejects(decideTask(d, { taskId: 'a', action: 'retry' }), UnknownRunError);
    await assert.rejects(decideTask(d, { taskId: 'a', action: 'resolve' }), HumanDecisionError, 'refused for what the task allows, not for trust');
    assert.equal(d.session(runId).state.lastSeq, seq, 'nothing was recorded');
    const decided = await decideTask(d, { taskId: 'a', action: 'retry', trustRun: true });
    assert.equal(decided.kind, 'readyToDrive');
    assert.equal(await driveToEnd(d, d.session(runId)), 'completed');
  });
});
