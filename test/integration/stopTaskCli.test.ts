import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { green, runEvents, task, trace, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

/** `a`'s first actor works for ten minutes; `b` is done at once. The gate wants the task's own file. */
const plan = { goal: 'two at once', tasks: [task('a'), task('b')] };
const scenario = {
  tasks: {
    a: { actor: [{ delayMs: 600_000, write: { 'a.txt': 'agent\n' } }], critic: [green] },
    b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] },
  },
};

/** The run's log holds this text (its process writes it as it goes). */
function logHas(dir: string, text: string): boolean {
  const runs = join(dir, '.taskloom', 'runs');
  const [runId] = existsSync(runs) ? readdirSync(runs) : [];
  const log = runId ? join(runs, runId, 'events.jsonl') : '';
  return log !== '' && existsSync(log) && readFileSync(log, 'utf8').includes(text);
}

/** `taskloom run` driving the two tasks in the background of a new repository, once a's actor is at work (or after two minutes). */
async function drivenUntilActorStarts(): Promise<{ r: TempRepo; driving: ReturnType<typeof startCli> }> {
  const r = makeTempRepo();
  repos.push(r);
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  const gate = ['--gate', 'test -f a.txt || test -f b.txt', '--no-baseline'];
  const driving = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...gate]);
  for (let i = 0; i < 1200 && !logHas(r.dir, 'scripted actor started'); i++) await sleep(100);
  return { r, driving };
}

describe('taskloom stop and take-over, from a second terminal while `taskloom run` drives', () => {
  it('stops one task: it waits for you, "stopped by you", the other merges, and continue hands it back', async () => {
    const { r, driving } = await drivenUntilActorStarts();
    try {
      assert.ok(logHas(r.dir, 'scripted actor started'), 'a\'s actor started');
      const stopped = runCli(['stop', 'a', '--cwd', r.dir]);
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stdout, /a is stopped: it waits for you, with its work so far\./);
      assert.match(stopped.stdout, /taskloom take-over a --run /);
      const ended = await driving.done;
      assert.equal(ended.code, 1, `the run ends needing you: ${ended.stdout}\n${ended.stderr}`);
      assert.match(ended.stdout, /a: stopped by you\n.*\n {4}taskloom continue a --run \S+ --cwd .* {3}\(hand it back: gate and review what is in its worktree\)/);
      assert.match(ended.stdout, /taskloom take-over a --run \S+ --cwd .* {3}\(work on it yourself, in its agent's session\)/);
    } finally {
      if (driving.child.exitCode === null) process.kill(-driving.child.pid!, 'SIGINT');
      await driving.done;
    }
    const [a, b] = trace(r.dir).tasks;
    assert.equal(a!.state, 'NEEDS_HUMAN');
    assert.equal(a!.lastReason, 'stopped by you');
    assert.equal(b!.state, 'MERGED');

    const refused = runCli(['stop', 'a', '--cwd', r.dir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Task "a" has nothing to stop: it is needs you/);

    const worktree = runEvents(r.dir).find((e) => e.type === 'worktree_prepared' && e.taskId === 'a');
    writeFileSync(join(worktree?.type === 'worktree_prepared' ? worktree.path : '', 'a.txt'), 'by hand\n');
    const handedBack = runCli(['continue', 'a', '--cwd', r.dir]);
    assert.equal(handedBack.code, 0, `${handedBack.stdout}\n${handedBack.stderr}`);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
  });

  it('takes a task over from a second terminal: the driving process stops it and records it, the session runs there, and continue hands it back', async () => {
    const { r, driving } = await drivenUntilActorStarts();
    try {
      // The session is a shell (the scripted agent has none of its own), reading what the person types.
      const taken = runCli(['take-over', 'a', '--cwd', r.dir], { input: 'echo "by hand" > a.txt\nexit\n' });
      assert.equal(taken.code, 1, `${taken.stdout}\n${taken.stderr}`);
      assert.match(taken.stdout, /a is yours: a shell/);
      assert.doesNotMatch(taken.stdout, /has not recorded the take over yet/);
      assert.equal((await driving.done).code, 1);
    } finally {
      if (driving.child.exitCode === null) process.kill(-driving.child.pid!, 'SIGINT');
      await driving.done;
    }
    const a = trace(r.dir).tasks[0]!;
    assert.deepEqual([a.state, a.lastReason], ['NEEDS_HUMAN', 'taken over by you']);
    assert.deepEqual(a.transitions.slice(-2).map((t) => t.event), ['HUMAN_STOPPED', 'HUMAN_TOOK_OVER']);
    const handedBack = runCli(['continue', 'a', '--cwd', r.dir]);
    assert.equal(handedBack.code, 0, `${handedBack.stdout}\n${handedBack.stderr}`);
    const merged = trace(r.dir).tasks[0]!;
    assert.equal(merged.state, 'MERGED');
    assert.equal(r.git(['show', `${merged.mergeCommit}:a.txt`]), 'by hand');
  });
});
