import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT } from '../../src/engine/domain/taskloomError';
import { processRegistryFile } from '../../src/engine/run/engine';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { green, task, trace, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

/** How many agent or gate process groups the engine on `dir` has running, as its registry lists them. */
function runningGroups(dir: string): number {
  try {
    return (JSON.parse(readFileSync(processRegistryFile(dir), 'utf8')) as { groups: unknown[] }).groups.length;
  } catch {
    return 0;
  }
}

/** The scripted actor said it started (its transcript is in the log at once). */
function actorStarted(dir: string): boolean {
  const runs = join(dir, '.taskloom', 'runs');
  const [runId] = existsSync(runs) ? readdirSync(runs) : [];
  return runId !== undefined && existsSync(join(runs, runId, 'events.jsonl')) && readFileSync(join(runs, runId, 'events.jsonl'), 'utf8').includes('scripted actor started');
}

describe('a decision on a cancelled run', () => {
  it('says, before it drives on, that the run resumes and which cancelled tasks start again with it', async () => {
    const r = makeTempRepo();
    repos.push(r);
    const plan = { goal: 'two at a time, one by one', tasks: [task('a'), task('b')] };
    // a hangs until the run is cancelled; its second attempt (the retry) and b write at once.
    const scenario = {
      tasks: {
        a: { actor: [{ hang: true }, write({ 'a.txt': 'a\n' })], critic: [green] },
        b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] },
      },
    };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    const first = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--parallel', '1', '--gate', 'true']);
    // Cancelled while a's agent works (not while its worktree is being made, nor while the sandbox is probed).
    for (let i = 0; i < 600 && !(runningGroups(r.dir) > 0 && actorStarted(r.dir)); i++) await sleep(50);
    process.kill(-first.child.pid!, 'SIGINT');
    assert.equal((await first.done).code, EXIT.needsHuman);
    const cancelled = trace(r.dir);
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.tasks.map((t) => t.state), ['CANCELLED', 'CANCELLED']);

    const retried = runCli(['retry', 'a', '--cwd', r.dir]);
    assert.match(retried.stdout, new RegExp(`^Run ${cancelled.runId} was cancelled: retrying a resumes it, and its other cancelled task \\(b\\) is taken up again too\\. Ctrl-C cancels it again\\.$`, 'm'));
    assert.equal(retried.code, EXIT.ok, retried.stdout + retried.stderr);
    assert.deepEqual(trace(r.dir).tasks.map((t) => t.state), ['MERGED', 'MERGED'], 'what it said is what happened');
  });

  it('says nothing of the kind when the run was not cancelled', () => {
    const r = makeTempRepo();
    repos.push(r);
    const plan = { goal: 'one that needs you', tasks: [task('a')] };
    const scenario = { tasks: { a: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'a.txt': 'a\n' })], critic: [green] } } };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    assert.equal(runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true']).code, EXIT.needsHuman);
    const retried = runCli(['retry', 'a', '--cwd', r.dir]);
    assert.equal(retried.code, EXIT.ok, retried.stdout + retried.stderr);
    assert.doesNotMatch(retried.stdout, /was cancelled/);
  });
});
