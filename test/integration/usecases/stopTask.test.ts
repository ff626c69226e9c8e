import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { allowedHumanActions, HumanDecisionError } from '../../../src/engine/domain/humanActions';
import { EngineShutdown } from '../../../src/engine/run/engineShutdown';
import type { RunSession } from '../../../src/engine/session/runSession';
import { decideTask } from '../../../src/engine/usecases/decideTask';
import type { FrontDoor } from '../../../src/engine/usecases/frontDoor';
import { stopTask, type StopTaskOutcome } from '../../../src/engine/usecases/stopTask';
import { NothingToStopError, UnknownTaskError } from '../../../src/engine/usecases/useCaseErrors';
import { green, task, write } from '../../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door } = doorsOfThisFile();

/** `a`'s first actor works for ten minutes (it would write a.txt after); `b` writes b.txt at once. The gate wants the task's file. */
function slowAndQuick(d: FrontDoor): RunSession {
  const plan: Plan = { goal: 'two at once', tasks: [task('a'), task('b')] };
  const scenario = {
    tasks: {
      a: { actor: [{ delayMs: 600_000, write: { 'a.txt': 'agent\n' } }, write({ 'a.txt': 'agent, second try\n' })], critic: [green] },
      b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] },
    },
  };
  return scriptedRun(d, plan, scenario, { settings: { gateCommands: ['test -f a.txt || test -f b.txt'], gateBaseline: false } });
}

/** Resolves once the task's actor is at work (the scripted agent's first transcript line). */
const actorAtWork = (session: RunSession, taskId: string): Promise<void> =>
  new Promise((resolve) => {
    const stop = session.onEvent((event) => {
      if (event.type === 'agent_transcript' && event.taskId === taskId && event.lines.some((l) => /scripted actor started/.test(JSON.stringify(l)))) {
        stop();
        resolve();
      }
    });
  });

describe('stopTask: stop one task, the rest of the run goes on', () => {
  it('stops one of two running tasks: it waits for you, "stopped by you", and the other merges', async () => {
    const d = await door();
    const session = slowAndQuick(d);
    const atWork = actorAtWork(session, 'a');
    const drive = d.engine.drive(session, new AbortController().signal);
    await atWork;
    const stopped: StopTaskOutcome = await stopTask(d, { taskId: 'a', by: 'you' });
    assert.deepEqual(stopped, { kind: 'stopped', runId: session.runId, taskId: 'a', state: 'NEEDS_HUMAN' });
    assert.equal(await drive, 'needs_human');
    const a = session.task('a');
    assert.equal(a.state, 'NEEDS_HUMAN');
    assert.equal(a.lastReason, 'stopped by you');
    assert.equal(a.withPerson, 'stopped');
    assert.ok(allowedHumanActions(a).includes('continue'), `hand back is offered: ${allowedHumanActions(a).join(', ')}`);
    assert.equal(session.task('b').state, 'MERGED');
    assert.ok(!session.state.taskOrder.some((id) => session.task(id).state === 'CANCELLED'), 'nothing else was cancelled');

    await assert.rejects(stopTask(d, { taskId: 'a', by: 'you' }), (error: unknown) => {
      assert.ok(error instanceof NothingToStopError, String(error));
      assert.equal(error.message, 'Task "a" has nothing to stop: it is needs you');
      return true;
    });
    await assert.rejects(stopTask(d, { taskId: 'ghost', by: 'you' }), UnknownTaskError);

    // Handed back with what the person wrote: the gate and the critic judge it, and it merges.
    writeFileSync(join(a.worktreePath!, 'a.txt'), 'by hand\n');
    const decided = await decideTask(d, { taskId: 'a', action: 'continue' });
    assert.equal(decided.kind, 'readyToDrive');
    assert.equal(await driveToEnd(d, session), 'completed');
    assert.equal(session.task('a').state, 'MERGED');
    const reasons = session.task('a').transitions.map((t) => `${t.event}: ${t.reason}`);
    assert.ok(reasons.includes('HANDED_BACK: handed back: the gate and the critic judge what is in its worktree'), reasons.join('\n'));
    assert.ok(reasons.includes('BUILD_FINISHED: handed back (1 file changed since the agent stopped)'), reasons.join('\n'));
    assert.ok(reasons.some((r) => r.startsWith('MECHANICAL_PASSED')) && reasons.some((r) => r.startsWith('CRITIC_GREEN')), 'gated and reviewed');
    const calls = session.task('a').calls.filter((c) => c.role === 'actor');
    assert.equal(calls.length, 1, `no actor was called after the hand back: ${reasons.join('\n')}`);
  });

  it('stops a task a run nobody drives left in flight: its leftover work is kept, and a resume leaves it to you', async () => {
    const d = await door();
    const session = slowAndQuick(d);
    const atWork = actorAtWork(session, 'a');
    const controller = new AbortController();
    const drive = d.engine.drive(session, controller.signal);
    await atWork;
    // The process driving it goes away mid-step: a records nothing, as after a crash.
    controller.abort(new EngineShutdown('test: the window closed'));
    assert.equal(await drive, 'interrupted');
    assert.equal(session.task('a').state, 'BUILDING');
    writeFileSync(join(session.task('a').worktreePath!, 'half.txt'), 'what the agent had written\n');

    const stopped = await stopTask(d, { runId: session.runId, taskId: 'a', by: 'you' });
    assert.equal(stopped.kind === 'stopped' && stopped.state, 'NEEDS_HUMAN');
    assert.equal(session.task('a').lastReason, 'stopped by you');
    assert.ok(session.task('a').changedFiles.includes('half.txt'), 'the leftover work was committed as work in progress');

    d.engine.prepareResume(session, 'test resumes');
    assert.equal(session.task('a').state, 'NEEDS_HUMAN', 'a resume does not start it again');
  });

  it('refuses to hand back a task nobody stopped or took over, recording nothing', async () => {
    const d = await door();
    const plan: Plan = { goal: 'failed', tasks: [task('a')] };
    const session = scriptedRun(d, plan, { tasks: { a: { actor: [{ fail: 'gave up', delayMs: 0 }], critic: [green] } } });
    assert.equal(await driveToEnd(d, session), 'needs_human');
    const seq = session.state.lastSeq;
    await assert.rejects(decideTask(d, { taskId: 'a', action: 'continue' }), (error: unknown) => {
      assert.ok(error instanceof HumanDecisionError, String(error));
      assert.equal(error.message, 'Task "a" has nothing to hand back: nobody stopped it or took it over');
      return true;
    });
    assert.equal(session.state.lastSeq, seq);
  });
});
