import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { RunEvent } from '../../src/engine/domain/events';
import { ApprovePlanRequest, ContinueTaskRequest, StartGoalRequest, StopTaskRequest, TakeOverRequest } from '../../src/protocol/engineProtocol';
import { writeInputs } from '../helpers/cli';
import { EngineServerProcess } from '../helpers/engineServer';
import { green, task, write } from '../helpers/scriptedRun';
import { scriptedSettings } from '../helpers/scriptedSettings';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
let server: EngineServerProcess | undefined;
after(async () => {
  await server?.stop();
  repos.forEach((r) => r.cleanup());
});

const transitionOf = (taskId: string, to: string) => (events: RunEvent[]) => events.some((e) => e.type === 'task_transition' && e.taskId === taskId && e.to === to);

describe('engine server: stop one task of the run it drives, take it over, hand it back', () => {
  it('stops a task in its drive while the other merges; takes it over (a shell for the scripted agent); hands it back to be gated and merged', async () => {
    server = await EngineServerProcess.start();
    const r = makeTempRepo();
    repos.push(r);
    const plan = { goal: 'two at once', tasks: [task('a'), task('b')] };
    const scenario = {
      tasks: {
        a: { actor: [{ delayMs: 600_000, write: { 'a.txt': 'agent\n' } }], critic: [green] },
        b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] },
      },
    };
    const settings = scriptedSettings(scenario, { gateCommands: ['test -f a.txt || test -f b.txt'], gateBaseline: false });
    const { runId } = await server.request(StartGoalRequest.type, { folder: r.dir, planFile: writeInputs({ 'plan.json': plan })['plan.json']!, settings });
    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId, by: 'autopilot' });
    await server.waitForEvents(runId, (events) => events.some((e) => e.type === 'agent_transcript' && e.taskId === 'a' && /scripted actor started/.test(JSON.stringify(e.lines))));

    const stopped = await server.request(StopTaskRequest.type, { folder: r.dir, runId, taskId: 'a' });
    assert.deepEqual(stopped, { state: 'NEEDS_HUMAN' });
    const end = await server.waitForEnd(runId);
    assert.equal(end.type === 'run_finished' && end.status, 'needs_human');
    assert.ok(transitionOf('b', 'MERGED')(server.eventsOf(runId)), 'the other task merged');
    const stop = server.eventsOf(runId).find((e) => e.type === 'task_transition' && e.taskId === 'a' && e.event === 'HUMAN_STOPPED');
    assert.equal(stop?.type === 'task_transition' && stop.reason, 'stopped by you');

    const refused = await server.request(StopTaskRequest.type, { folder: r.dir, runId, taskId: 'a' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ResponseError, String(refused));
    assert.equal(refused.message, 'Task "a" has nothing to stop: it is needs you');

    const taken = await server.request(TakeOverRequest.type, { folder: r.dir, runId, taskId: 'a' });
    assert.equal(taken.program, 'shell');
    await server.waitForEvents(runId, (events) => events.some((e) => e.type === 'task_transition' && e.taskId === 'a' && e.reason === 'taken over by you'));
    writeFileSync(join(taken.worktree, 'a.txt'), 'by hand\n');
    const seq = server.lastSeq(runId);
    assert.deepEqual(await server.request(ContinueTaskRequest.type, { folder: r.dir, runId, taskId: 'a' }), { passed: true });
    const done = await server.waitForEnd(runId, seq);
    assert.equal(done.type === 'run_finished' && done.status, 'completed');
    assert.ok(transitionOf('a', 'MERGED')(server.eventsOf(runId).filter((e) => e.seq > seq)));
  });
});
