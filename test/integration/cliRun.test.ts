import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli';
import { green, runEvents, runScripted, task, trace, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

function repo(files?: Record<string, string>): TempRepo {
  const r = makeTempRepo(files ? { files } : {});
  repos.push(r);
  return r;
}


// The gates here check the work still to be done (`test -f done.txt`): failing on the base is what they are for.
const run = (dir: string, plan: object, scenario: object, ...flags: string[]) => runScripted(dir, plan, scenario, ...flags, '--on-base-failure', 'required');

describe('taskloom run (real git, real processes)', () => {
  it('builds a dependent task on top of its dependency and skips dependents of a failed task', () => {
    const r = repo();
    const plan = { goal: 'chain', tasks: [task('base'), task('uses-base', ['base']), task('broken'), task('after-broken', ['broken'])] };
    const scenario = {
      tasks: {
        base: { actor: [write({ 'lib.txt': 'v1\n' })], critic: [green] },
        'uses-base': { actor: [write({ 'user.txt': 'uses lib\n' })], critic: [green] },
        broken: { actor: [{ fail: 'cannot do this', delayMs: 0 }] },
      },
    };
    // The gate of uses-base only passes when base's file is in its worktree.
    const result = run(r.dir, plan, scenario, '--gate', 'test ! -f user.txt || test -f lib.txt');
    assert.equal(result.code, 1);
    const t = trace(r.dir);
    const byId = Object.fromEntries(t.tasks.map((x) => [x.id, x]));
    assert.equal(byId['uses-base']!.state, 'MERGED');
    assert.equal(byId.broken!.state, 'NEEDS_HUMAN');
    assert.match(byId.broken!.lastReason, /cannot do this/);
    assert.equal(byId['after-broken']!.state, 'SKIPPED');
    assert.match(byId['after-broken']!.lastReason, /dependency "broken"/);
    assert.match(result.stdout, /Needs you:/);
  });

  it('starts a task that depends on two conflicting tasks once the queue has resolved them, from the branch that holds both', () => {
    const r = repo();
    const plan = { goal: 'clash', tasks: [task('a'), task('b'), task('joins', ['a', 'b']), task('solo')] };
    const scenario = {
      tasks: {
        a: { actor: [write({ 'shared.txt': 'from a\n' })], critic: [green] },
        b: { actor: [write({ 'shared.txt': 'from b\n' })], critic: [green] },
        // The gate of joins passes only when both sides reached its worktree.
        joins: { actor: [write({ 'joins.txt': 'ok\n' })], critic: [green] },
        solo: { actor: [write({ 'solo.txt': 'solo\n' })], critic: [green] },
      },
    };
    const result = run(r.dir, plan, scenario, '--gate', 'test ! -f joins.txt || (grep -q "from a" shared.txt && grep -q "from b" shared.txt)', '--parallel', '2');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const t = trace(r.dir);
    assert.deepEqual(t.tasks.map((x) => x.state), ['MERGED', 'MERGED', 'MERGED', 'MERGED']);
    assert.equal(t.tasks.reduce((n, x) => n + x.mergeConflicts, 0), 1, 'one of a and b met the other and its agent resolved it');
    assert.equal(r.git(['show', `${t.integration.branch}:shared.txt`]).split('\n').sort().join(','), 'from a,from b');
  });

  it('lets a human retry with a note, accept, or skip, and continues the run', () => {
    const r = repo();
    const plan = { goal: 'human', tasks: [task('flaky'), task('next', ['flaky'])] };
    const scenario = {
      tasks: {
        flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] },
        next: { actor: [write({ 'next.txt': 'ok\n' })], critic: [green] },
      },
    };
    assert.equal(run(r.dir, plan, scenario, '--gate', 'true').code, 1);
    assert.equal(trace(r.dir).tasks[1]!.state, 'SKIPPED');

    const refused = runCli(['accept', 'next', '--cwd', r.dir]);
    assert.equal(refused.code, 2);
    // Skipped because flaky was: nothing to decide on it (it comes back when flaky is retried).
    assert.match(refused.stderr, /Task "next" \(skipped\) cannot be accepted now\. Nothing is waiting for you on this task\./);
    const retryNext = runCli(['retry', 'next', '--cwd', r.dir]);
    assert.equal(retryNext.code, 2);
    assert.match(retryNext.stderr, /Task "next" was skipped because a task it depends on did not go green: it starts again by itself once that task is retried/);

    const retried = runCli(['retry', 'flaky', '--note', 'the file goes at the root', '--cwd', r.dir]);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    const t = trace(r.dir);
    assert.deepEqual(t.tasks.map((x) => x.state), ['MERGED', 'MERGED']);
    assert.equal(t.status, 'completed');
    assert.ok(t.tasks[0]!.transitions.some((x) => x.event === 'HUMAN_RETRY' && x.reason.includes('the file goes at the root')));
    assert.ok(t.tasks[1]!.transitions.some((x) => x.event === 'DEPENDENCY_RETRIED'));
  });

  it('traces where a task spent its time, and keeps the time it waited for you out of the task time', async () => {
    const r = repo();
    const plan = { goal: 'timings', tasks: [task('slow')] };
    const scenario = {
      tasks: {
        slow: {
          actor: [{ fail: 'first try fails', delayMs: 300 }, { write: { 'slow.txt': 'ok\n' }, delayMs: 300 }],
          critic: [{ ...green, delayMs: 200 }],
        },
      },
    };
    assert.equal(run(r.dir, plan, scenario, '--gate', 'sleep 0.2').code, 1);
    // The person takes a while to decide.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const retried = runCli(['retry', 'slow', '--note', 'again', '--cwd', r.dir]);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);

    const slow = trace(r.dir).tasks[0]!;
    const t = slow.timings;
    assert.equal(slow.state, 'MERGED');
    assert.deepEqual(t.calls.map((c) => [c.role, c.step, c.status]), [['actor', 'build', 'agent_error'], ['actor', 'build', 'ok'], ['critic', 'review', 'ok']]);
    assert.ok(t.calls.every((c) => c.durationMs >= 200), JSON.stringify(t.calls));
    assert.equal(t.gateRuns.length, 1);
    // Each phase holds at least what the scripted agents and the gate were told to take.
    assert.ok(t.buildingMs >= 600, `building ${t.buildingMs} ms`);
    assert.ok(t.reviewingMs >= 200, `reviewing ${t.reviewingMs} ms`);
    assert.ok(t.gatingMs >= 200, `gating ${t.gatingMs} ms`);
    assert.ok(t.mergeQueueMs > 0);
    assert.ok(t.waitingForHumanMs >= 1500, `waited ${t.waitingForHumanMs} ms`);
    // The task time, the queue and the wait are apart: together they fit in the task's wall-clock span.
    assert.equal(slow.durationMs, t.totalMs);
    const span = Date.parse(slow.transitions.at(-1)!.at) - Date.parse(slow.transitions[0]!.at);
    assert.ok(t.totalMs + t.mergeQueueMs + t.waitingForHumanMs <= span, JSON.stringify({ span, t }));

    const text = runCli(['trace', '--cwd', r.dir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^ {2}time [\d.]+ m?s \(building [\d.]+ m?s, gating [\d.]+ m?s, reviewing [\d.]+ m?s\); merge queue [\d.]+ m?s; waited for you [\d.]+ m?s$/m);
    assert.match(text.stdout, /^ {2}steps: build [\d.]+ m?s agent error, build [\d.]+ m?s, gate [\d.]+ m?s, review [\d.]+ m?s$/m);
  });

  it('accepts a task as it is, including what its agent left uncommitted, and builds its dependents on it', () => {
    const r = repo();
    const plan = { goal: 'accept', tasks: [task('rough'), task('builds-on', ['rough'])] };
    const scenario = {
      tasks: {
        rough: { actor: [{ write: { 'rough.txt': 'good enough\n' }, crash: true, delayMs: 0 }] },
        'builds-on': { actor: [write({ 'next.txt': 'ok\n' })], critic: [green] },
      },
    };
    // builds-on's gate passes only when rough's file reached its worktree.
    assert.equal(run(r.dir, plan, scenario, '--gate', 'test ! -f next.txt || test -f rough.txt').code, 1);
    const accepted = runCli(['accept', 'rough', '--cwd', r.dir]);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    const t = trace(r.dir);
    assert.deepEqual(t.tasks.map((x) => x.state), ['MERGED', 'MERGED']);
    assert.equal(r.git(['show', `${t.integration.branch}:rough.txt`]), 'good enough');
  });

  it('skips a task on request, and what depends on it stays skipped', () => {
    const r = repo();
    const plan = { goal: 'skip', tasks: [task('broken'), task('after', ['broken']), task('other')] };
    const scenario = { tasks: { broken: { actor: [{ fail: 'no', delayMs: 0 }] }, other: { actor: [write({ 'o.txt': 'o' })], critic: [green] } } };
    assert.equal(run(r.dir, plan, scenario, '--gate', 'true').code, 1);
    const skipped = runCli(['skip', 'broken', '--cwd', r.dir]);
    assert.equal(skipped.code, 0, 'a skip leaves nothing for the human to decide: the run completes');
    assert.match(skipped.stdout, /completed — 1\/3 merged into \S+, 2 skipped, integration gate passed/);
    const t = trace(r.dir);
    assert.equal(t.status, 'completed');
    assert.deepEqual(t.tasks.map((x) => x.state), ['SKIPPED', 'SKIPPED', 'MERGED']);
    assert.deepEqual(t.integration.merged, ['other']);
  });

  it('pauses on a quota hit and completes on resume', () => {
    const r = repo();
    const plan = { goal: 'quota', tasks: [task('a')] };
    const scenario = { tasks: { a: { actor: [{ quota: true, delayMs: 0 }, write({ 'a.txt': 'a\n' })], critic: [green] } } };
    const first = run(r.dir, plan, scenario, '--gate', 'true');
    assert.equal(first.code, 1);
    assert.match(first.stdout, /paused/);
    assert.equal(trace(r.dir).status, 'paused');
    const resumed = runCli(['resume', '--cwd', r.dir]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    const t = trace(r.dir);
    assert.equal(t.status, 'completed');
    assert.equal(t.tasks[0]!.attempts, 2);
  });

  it('counts usage exactly per role and in total', () => {
    const r = repo();
    const usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 10, cacheWriteTokens: 1 };
    const plan = { goal: 'usage', tasks: [task('a')] };
    const scenario = {
      defaults: { delayMs: 0, usage, costUsd: 0.25 },
      tasks: { a: { actor: [{ write: { 'a.txt': 'a' } }], critic: [{ verdict: { decision: 'green', summary: 'ok', findings: [] } }] } },
    };
    assert.equal(run(r.dir, plan, scenario, '--gate', 'true').code, 0);
    const t = trace(r.dir);
    assert.equal(t.usage.calls, 2);
    assert.deepEqual(t.usage.total, { inputTokens: 2000, outputTokens: 200, cacheReadTokens: 20, cacheWriteTokens: 2, costUsd: 0.5 });
    assert.equal(t.usage.byRole.actor!.costUsd, 0.25);
    assert.equal(t.usage.byTask.a!.inputTokens, 2000);
  });

  it('runs the demo end to end and leaves the log, the ledger and a merged integration branch', () => {
    const r = repo();
    const dir = `${r.dir}/demo`;
    const result = runCli(['demo', '--dir', dir, '--delay', '0']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /completed — 5\/5 merged into \S+, integration gate passed/);
    const t = trace(dir);
    const runDir = `${dir}/.taskloom/runs/${t.runId}`;
    for (const f of ['events.jsonl', 'run.json', 'DECISIONS.md']) assert.ok(existsSync(`${runDir}/${f}`), f);
    assert.ok(existsSync(`${dir}/.taskloom/state.json`));
    const byId = Object.fromEntries(t.tasks.map((x) => [x.id, x]));
    assert.equal(byId['word-count']!.gateFailures, 1);
    assert.equal(byId['title-case']!.reviewCycles, 1);
    // The demo's README: title-case waits for slugify (both name it), word-count's merge conflicts (its hints missed it).
    assert.deepEqual(t.integration.overlaps, [{ first: 'slugify', second: 'title-case', files: ['README.md'] }]);
    assert.equal(byId['word-count']!.mergeConflicts, 1);
    const readme = runGit(dir, ['show', `${t.integration.branch}:README.md`]);
    for (const line of ['- slugify(text)', '- wordCount(text)', '## Title case']) assert.ok(readme.includes(line), `${line} in the README`);
    const files = runGit(dir, ['ls-tree', '-r', '--name-only', t.integration.branch!]);
    for (const f of ['src/slugify.js', 'src/wordCount.js', 'src/titleCase.js', 'src/summary.js', 'bin/textkit.js']) {
      assert.ok(files.includes(f), `${f} is on the integration branch`);
    }
    const decisions = readFileSync(`${runDir}/DECISIONS.md`, 'utf8');
    assert.match(decisions, /changes required/);
    assert.match(decisions, /Gate failed/);
    assert.equal(runGit(dir, ['status', '--porcelain']), '', '.taskloom/ is excluded and the user tree untouched');
  });
});

function runGit(dir: string, args: string[]): string {
  const r = makeGitRunner(dir);
  return r(args);
}

function makeGitRunner(dir: string) {
  return (args: string[]) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
    return execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  };
}

describe('limits that end in a human, never in silent looping', () => {
  // Read loosely: the checks below look at fields of several event types.
  const events = (dir: string) => runEvents(dir) as unknown as Array<Record<string, unknown> & { type: string }>;

  it('stops a task at its dollar budget before making another call', () => {
    const r = repo();
    const scenario = {
      defaults: { delayMs: 0, costUsd: 0.006 },
      tasks: { a: { actor: [{ write: { 'a.txt': 'x' } }], critic: [green] } },
    };
    // Every attempt fails the gate: attempt 2 may start ($0.006 spent < $0.01), attempt 3 may not ($0.012).
    const result = run(r.dir, { goal: 'budget', tasks: [task('a')] }, scenario, '--gate', 'false', '--task-budget-usd', '0.01');
    assert.equal(result.code, 1);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.state, 'NEEDS_HUMAN');
    assert.match(a.lastReason, /task "a" budget of \$0\.01 is spent.*no further agent call/);
    assert.equal(trace(r.dir).usage.calls, 2, 'two actor calls, the third never made');
  });

  it('escalates a blocking finding that comes back after two fix attempts', () => {
    const r = repo();
    const finding = { file: 'a.txt', severity: 'major', category: 'correctness', message: 'The value is wrong.' };
    const scenario = {
      defaults: { delayMs: 0 },
      tasks: { a: { actor: [{ write: { 'a.txt': 'x' } }], critic: [{ verdict: { decision: 'changes_required', summary: 'wrong', findings: [finding] } }] } },
    };
    const result = run(r.dir, { goal: 'stubborn', tasks: [task('a')] }, scenario, '--gate', 'true', '--max-reviews', '10');
    assert.equal(result.code, 1);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.reviewCycles, 3);
    assert.match(a.lastReason, /same finding 3 times.*a\.txt: The value is wrong/);
  });

  it('continues the actor conversation on retries instead of starting over', () => {
    const r = repo();
    const scenario = { tasks: { a: { actor: [{ write: { 'a.txt': 'x' }, delayMs: 0 }], critic: [green] } } };
    run(r.dir, { goal: 'resume session', tasks: [task('a')] }, scenario, '--gate', 'test -f .never', '--max-attempts', '3');
    const actorCalls = events(r.dir).filter((e) => e.type === 'runner_call' && e.role === 'actor');
    assert.deepEqual(actorCalls.map((e) => e.resumed ?? false), [false, true, true]);
  });

  it('does not run the gate again on a tree the actor left unchanged, and says so', () => {
    const r = repo();
    const same = { write: { 'a.txt': 'x' }, delayMs: 0 };
    const scenario = { tasks: { a: { actor: [same, same, { write: { 'fixed.txt': 'ok' }, delayMs: 0 }], critic: [green] } } };
    const result = run(r.dir, { goal: 'unchanged', tasks: [task('a')] }, scenario, '--gate', 'test -f fixed.txt', '--max-attempts', '4');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const log = events(r.dir);
    const gated = log.filter((e) => e.type === 'gate_result' && e.taskId === 'a').map((e) => e.attempt);
    const skipped = log.filter((e) => e.type === 'gate_skipped').map((e) => [e.attempt, e.failedAttempt]);
    assert.deepEqual(gated, [1, 3], 'the gate ran on attempts 1 and 3 only');
    assert.deepEqual(skipped, [[2, 1]]);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.state, 'MERGED');
    assert.ok(a.transitions.some((t) => /attempt 2 changed no file since `test -f fixed.txt` failed on attempt 1, so its failure stands/.test(t.reason)), JSON.stringify(a.transitions));
  });
});

describe('taskloom COMMAND --help', () => {
  it("prints that command's usage and runs nothing", () => {
    const r = repo();
    const result = runCli(['run', '--help', '--cwd', r.dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^taskloom run \(--plan FILE \| --goal TEXT \| --issue OWNER\/REPO#N\|URL\|#N \[--trust-issue\]\)/);
    assert.match(result.stdout, /--critic-agent A/);
    assert.ok(!existsSync(`${r.dir}/.taskloom`), 'no run was made');
    const watchUsage = runCli(['watch', '-h']).stdout;
    assert.match(watchUsage, /^taskloom watch \[RUN_ID\] \[--once\] \[--interval S\] \[--timeout S\] \[--escalate-after MIN\] \[--auto-merge\] \[--trusted-bot LOGIN\]\.\.\. \[--notify URL\]\.\.\. \[--allow-config\]\n +keep the run's pull requests green until merged or closed/);
    assert.match(watchUsage, /^taskloom watch --pr NUMBER\|URL /m, 'each form of the command');
    assert.match(watchUsage, /^taskloom watch --issues LABEL /m);
    assert.doesNotMatch(watchUsage, /taskloom runs /, 'and no other command');
  });
});
