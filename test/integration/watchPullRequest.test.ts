import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { startCli, type CliResult } from '../helpers/cli';
import { deliveredRun, SCENARIO, type Delivery } from '../helpers/deliveryRepo';
import { readEvents, startKiller } from '../faults/faultHelpers';

/**
 * `taskloom watch` keeping a pull request green against a scripted GitHub whose CI really lints
 * and tests each pushed head: a failing check goes to an actor, a review that requests changes to
 * the actor of the task that changed the file, each fix through the gate and the critic, pushed,
 * answered; a killed watch, restarted, never reacts twice.
 */

const deliveries: Delivery[] = [];
after(async () => {
  for (const d of deliveries) await d.cleanup();
});

const WATCH = ['watch', '--once', '--interval', '0.2', '--timeout', '90'];

const cli = (d: Delivery, args: string[]): Promise<CliResult> => startCli([...args, '--cwd', d.r.dir], d.env).done;

const remoteSubjects = (d: Delivery, from: string, branch: string) =>
  execFileSync('git', ['--git-dir', d.bare, 'log', '--first-parent', '--format=%s', `${from}..${branch}`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).reverse();
const remoteHead = (d: Delivery, branch: string) => execFileSync('git', ['--git-dir', d.bare, 'rev-parse', branch], { encoding: 'utf8' }).trim();

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

/** A delivered run with its pull request open, and alice, who asks for a change once CI passes, then approves the fix. */
async function openPullRequest(options?: Parameters<typeof deliveredRun>[0]): Promise<{ d: Delivery; branch: string; opened: string }> {
  const d = await deliveredRun({ ...options, reviewer: 'alice' });
  deliveries.push(d);
  const pr = await cli(d, ['pr']);
  assert.equal(pr.code, 0, pr.stdout + pr.stderr);
  const branch = d.server.pulls[0]!.head;
  return { d, branch, opened: remoteHead(d, branch) };
}

describe('taskloom watch', () => {
  it('fixes a failing check, then the review, each by the right actor through gate and critic, replies, and exits 0 once approved', async () => {
    const { d, branch, opened } = await openPullRequest();
    const watched = await cli(d, WATCH);
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    assert.match(watched.stdout, /reaction 1: failing check\(s\): lint \(fixed by the actor of the integration\)/);
    assert.match(watched.stdout, /reaction 2: alice requested changes \(1 comment\) \(fixed by the actor of "exclaim"\)/);
    assert.match(watched.stdout, /#1 is green: every check passes \(2\) and alice approved/);

    assert.deepEqual(remoteSubjects(d, opened, branch), ['Fix the failing check "lint"', "End greetings with an exclamation mark: address alice's review"]);
    const reviewFix = execFileSync('git', ['--git-dir', d.bare, 'log', '-1', '--format=%(trailers:only)', branch], { encoding: 'utf8' });
    assert.match(reviewFix, /Taskloom-Task: exclaim/);
    assert.deepEqual(
      d.ciRuns.map((c) => [c.lint, c.test]),
      [[false, true], [true, true], [true, true]],
      'CI failed lint on the opened head, and passed on both fixes',
    );
    assert.equal(d.server.replies.length, 1);
    assert.equal(d.server.replies[0]!.commentId, Number(d.server.requests.find((r) => r.path.includes('/replies'))!.path.match(/comments\/(\d+)/)![1]));
    assert.match(d.server.replies[0]!.body, /^Addressed in [0-9a-f]{10}: greet now builds its text with a template literal/);

    const events = readEvents(d.r.dir);
    const fixCalls = ofType(events, 'runner_call').filter((e) => e.seq > ofType(events, 'pull_request')[0]!.seq);
    assert.deepEqual(
      fixCalls.map((c) => [c.role, c.taskId]),
      [['actor', null], ['critic', null], ['actor', 'exclaim'], ['critic', 'exclaim']],
      'the check went to the integration actor, the comment on src/greet.js to the actor of exclaim, each reviewed by the critic',
    );
    assert.deepEqual(ofType(events, 'pr_fix_gated').map((e) => e.passed), [true, true]);
    assert.deepEqual(ofType(events, 'pr_reaction_finished').map((e) => e.outcome), ['pushed', 'pushed']);

    const trace = JSON.parse((await cli(d, ['trace', '--json'])).stdout) as TraceReport;
    assert.equal(trace.pullRequests[0]!.number, 1);
    assert.equal(trace.pullRequests[0]!.review, 'approved');
    assert.deepEqual(trace.pullRequests[0]!.checks, [{ name: 'lint', status: 'success' }, { name: 'test', status: 'success' }]);

    const again = await cli(d, WATCH);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(ofType(readEvents(d.r.dir), 'pr_reaction_started').length, 2, 'nothing is reacted to twice');
    assert.equal(remoteSubjects(d, opened, branch).length, 2);

    // The run's branch followed its pull request: pr finds nothing to push, apply takes the fixed work.
    assert.equal(d.r.git(['rev-parse', branch]), remoteHead(d, branch));
    const updated = await cli(d, ['pr']);
    assert.equal(updated.code, 0, updated.stdout + updated.stderr);
    const before = d.r.git(['rev-parse', 'main']);
    const applied = await cli(d, ['apply', '--squash', '--yes']);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    // The two tasks ran side by side: their commits come in the order they merged, then the fixes.
    const subjects = d.r.git(['log', '--reverse', '--format=%s', `${before}..main`]).split('\n');
    assert.deepEqual(
      [...subjects.slice(0, 2).sort(), ...subjects.slice(2)],
      ['End greetings with an exclamation mark', 'Say goodbye too', 'Greet with more warmth: fixes from its pull request'],
    );
    assert.doesNotMatch(d.r.git(['show', 'main:src/farewell.js']), /console\.log/);
    assert.match(d.r.git(['show', 'main:src/greet.js']), /`Hello, \$\{name\}!`/);
  });

  it('killed while the reply is on its way, restarted: posts the reply once, and neither fixes nor pushes again', async () => {
    const { d, branch, opened } = await openPullRequest({ replyDelayMs: 3000 });
    const { child, done } = startCli([...WATCH, '--cwd', d.r.dir], d.env);
    const killed = await startKiller(d.r.dir, child.pid!, { type: 'pr_fix_pushed', occurrence: 2 });
    await done;
    assert.equal(killed.killed, true);
    const before = readEvents(d.r.dir);
    assert.equal(ofType(before, 'pr_replied').length, 0, 'killed before the reply was posted');
    const callsBefore = ofType(before, 'runner_call').length;

    const restarted = await cli(d, WATCH);
    assert.equal(restarted.code, 0, restarted.stdout + restarted.stderr);
    assert.match(restarted.stdout, /finishing reaction 2/);
    const events = readEvents(d.r.dir);
    assert.equal(ofType(events, 'pr_reaction_started').length, 2, 'no reaction started twice');
    assert.equal(ofType(events, 'runner_call').length, callsBefore, 'no agent was called again');
    assert.equal(d.server.replies.length, 1, 'one reply');
    assert.equal(remoteSubjects(d, opened, branch).length, 2, 'one push per fix');
  });

  it('killed while the actor fixes the review, restarted: takes the same reaction up again and pushes one fix', async () => {
    const slow = structuredClone(SCENARIO);
    slow.tasks.exclaim.fix[0] = { ...slow.tasks.exclaim.fix[0]!, delayMs: 2000 } as (typeof slow.tasks.exclaim.fix)[0];
    const { d, branch, opened } = await openPullRequest({ scenario: slow });
    const { child, done } = startCli([...WATCH, '--cwd', d.r.dir], d.env);
    const killed = await startKiller(d.r.dir, child.pid!, { type: 'pr_reaction_started', occurrence: 2, delayMs: 500 });
    await done;
    assert.equal(killed.killed, true);

    const restarted = await cli(d, WATCH);
    assert.equal(restarted.code, 0, restarted.stdout + restarted.stderr);
    const events = readEvents(d.r.dir);
    assert.equal(ofType(events, 'pr_reaction_started').length, 2);
    assert.equal(ofType(events, 'pr_reaction_resumed').length, 1);
    assert.equal(d.server.replies.length, 1);
    assert.deepEqual(remoteSubjects(d, opened, branch), ['Fix the failing check "lint"', "End greetings with an exclamation mark: address alice's review"]);
  });

  it('merges the base in when someone changed it where the run did, resolving the conflict before the checks and the review', async () => {
    const { d, branch, opened } = await openPullRequest();
    // A colleague lands a change to the same line on main meanwhile.
    const other = mkdtempSync(join(tmpdir(), 'taskloom-colleague-'));
    try {
      execFileSync('git', ['clone', '-q', d.bare, other]);
      writeFileSync(join(other, 'src', 'greet.js'), "function greet(name) {\n  return 'Hi, ' + name;\n}\n\nmodule.exports = { greet };\n");
      execFileSync('git', ['-C', other, '-c', 'user.name=Colleague', '-c', 'user.email=c@example.com', 'commit', '-qam', 'Say hi']);
      execFileSync('git', ['-C', other, 'push', '-q', 'origin', 'main']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    const watched = await cli(d, WATCH);
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    assert.match(watched.stdout, /reaction 1: conflicts with main/);
    const kinds = ofType(readEvents(d.r.dir), 'pr_reaction_started').map((e) => e.kind);
    assert.deepEqual(kinds, ['conflict', 'check', 'review']);
    const merge = remoteSubjects(d, opened, branch)[0];
    assert.equal(merge, `Merge main into ${branch}`);
    const mainHead = remoteHead(d, 'main');
    assert.equal(
      execFileSync('git', ['--git-dir', d.bare, 'merge-base', '--is-ancestor', mainHead, branch]).length,
      0,
      "the colleague's commit is in the pull request",
    );
  });

  it('exits 1 and says what to do when a check fails without output it can read, or the pull request was closed', async () => {
    const { d } = await openPullRequest();
    d.server.onHead(() => [{ name: 'deploy-preview', conclusion: 'failure' }]);
    const unreadable = await cli(d, WATCH);
    assert.equal(unreadable.code, 1, unreadable.stdout + unreadable.stderr);
    assert.match(unreadable.stdout, /#1 needs you: the check "deploy-preview" failed without output or annotations an agent could work from/);
    assert.match(unreadable.stdout, /See why at https:\/\/github\.example\/octo\/greeter\/runs\/\d+\. Fix "deploy-preview" on taskloom\/.*\/integration yourself and push/);

    d.server.pulls[0]!.state = 'closed';
    const closed = await cli(d, WATCH);
    assert.equal(closed.code, 1);
    assert.match(closed.stdout, /#1 needs you: it was closed without being merged/);
    assert.equal(ofType(readEvents(d.r.dir), 'pr_reaction_started').length, 0, 'nothing was reacted to');
  });
});
