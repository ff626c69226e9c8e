import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { runCli, startCli, type CliResult } from '../helpers/cli';
import { delivered } from '../helpers/deliveredInTests';
import { pushAsPerson, SCENARIO, type Delivery } from '../helpers/deliveryRepo';
import type { ScriptedCheck } from '../helpers/githubServer';
import { readEvents } from '../faults/faultHelpers';

/**
 * `taskloom watch` as a service, against a scripted GitHub whose CI really lints and tests each
 * pushed head: it watches until the pull requests are merged, not until green; each pull request
 * on its own; fix budgets re-arm after green; a red one is escalated; a stacked child waits for its
 * parent's conflict; `--auto-merge` merges only on an approval from someone with write access.
 */

const cli = (d: Delivery, args: string[]): Promise<CliResult> => startCli([...args, '--cwd', d.r.dir], d.env).done;

interface BackgroundWatch {
  output: () => string;
  ended: () => boolean;
  done: Promise<CliResult>;
}

/** A watch in the background, whose output the test reads while it runs. */
function startWatch(d: Delivery, args: string[]): BackgroundWatch {
  const { child, done } = startCli(['watch', '--interval', '0.2', '--timeout', '180', ...args, '--cwd', d.r.dir], d.env);
  let output = '';
  let ended = false;
  child.stdout!.on('data', (c) => (output += c));
  void done.then(() => (ended = true));
  return { output: () => output, ended: () => ended, done };
}

/** Waits (generously: CI is a busy machine) until `ready` answers something; fails at once if the watch ended first. */
async function until<T>(watch: BackgroundWatch, what: string, ready: () => T | undefined | false, ms = 150_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(200)) {
    const answer = ready();
    if (answer) return answer;
    if (watch.ended()) throw new Error(`watch ended before ${what}:\n${(await watch.done).stdout}`);
  }
  throw new Error(`gave up waiting for ${what}`);
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
const greenSeen = (d: Delivery, number: number) =>
  ofType(readEvents(d.r.dir), 'pr_observed').filter((e) => e.number === number && e.review === 'approved' && e.checks.length > 0 && e.checks.every((c) => c.status === 'success'));

/** Marks a pull request merged on the scripted GitHub, as a person pressing the button would. */
const mergedByPerson = (d: Delivery, number: number) => Object.assign(d.server.pulls[number - 1]!, { state: 'closed', merged: true });

/** CI as deliveredRun's, and alice (a collaborator) approving every head it passes. */
function approveGreenHeads(d: Delivery): void {
  d.server.onHead((sha, pull) => {
    const checks = d.ciChecks(sha);
    if (checks.every((c) => c.conclusion === 'success')) d.server.addReview(pull.number, { user: 'alice', state: 'APPROVED', body: 'LGTM' });
    return checks;
  });
}

describe('taskloom watch as a service', () => {
  it('keeps watching after green: a check that turns red later is fixed without restarting, with the fix budget re-armed', async () => {
    // One check fix before a person is asked (--max-attempts 1): only a re-armed budget lets the second through.
    const d = await delivered({ runArgs: ['--max-attempts', '1'] });
    approveGreenHeads(d);
    assert.equal((await cli(d, ['pr'])).code, 0);
    const branch = d.server.pulls[0]!.head;
    const opened = execFileSync('git', ['--git-dir', d.bare, 'rev-parse', branch], { encoding: 'utf8' }).trim();
    const watch = startWatch(d, []);

    const firstGreen = await until(watch, 'the fixed pull request to be green', () => greenSeen(d, 1)[0]);
    assert.match(await until(watch, 'the green line', () => /#1 is green: every check passes \(2\) and alice approved; watching until it is merged or closed/.test(watch.output()) && watch.output()), /Watching .* until merged or closed/);
    // A colleague brings the debugging line back: lint fails on the new head.
    const debugging = execFileSync('git', ['--git-dir', d.bare, 'show', `${opened}:src/farewell.js`], { encoding: 'utf8' });
    const pushed = pushAsPerson(d, branch, { 'src/farewell.js': debugging }, 'Debug farewell');
    await until(watch, 'green again after the second fix', () => greenSeen(d, 1).find((e) => e.seq > firstGreen.seq && e.headSha !== pushed));
    mergedByPerson(d, 1);

    const done = await watch.done;
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, new RegExp(`#1 turned red again at ${pushed.slice(0, 10)}: failing: lint`));
    assert.match(done.stdout, /Pull request #1 was merged/);
    const events = readEvents(d.r.dir);
    assert.deepEqual(ofType(events, 'pr_reaction_started').map((e) => [e.kind, e.summary]), [
      ['check', 'failing check(s): lint'],
      ['check', 'failing check(s): lint'],
    ]);
    assert.deepEqual(ofType(events, 'pr_reaction_finished').map((e) => e.outcome), ['pushed', 'pushed']);
    assert.equal(ofType(events, 'pr_watch_ended').filter((e) => e.outcome === 'needs_human').length, 0, 'nobody was asked');
  });

  it('stacked: one that needs a person is left to them (and escalated once it stays red) while the other is still fixed', async () => {
    const d = await delivered();
    d.server.onHead((sha, pull): ScriptedCheck[] => (pull.number === 1 ? [{ name: 'deploy-preview', conclusion: 'failure' }] : d.ciChecks(sha)));
    assert.equal((await cli(d, ['pr', '--stacked'])).code, 0);
    const watch = startWatch(d, ['--escalate-after', '0.02']);

    await until(watch, '#2 fixed and green', () => ofType(readEvents(d.r.dir), 'pr_observed').some((e) => e.number === 2 && e.checks.every((c) => c.status === 'success')));
    await until(watch, '#1 escalated', () => ofType(readEvents(d.r.dir), 'pull_request_escalated').length > 0);
    mergedByPerson(d, 2);

    const done = await watch.done;
    assert.equal(done.code, 1, done.stdout + done.stderr);
    assert.match(done.stdout, /#1 needs you: the check "deploy-preview" failed without output or annotations an agent could work from/);
    assert.match(done.stdout, /Pull request #1 escalated: red for 0\.02 minutes or more with no progress \(failing: deploy-preview/);
    assert.match(done.stdout, /Pull request #2 was merged/);
    const events = readEvents(d.r.dir);
    assert.deepEqual(ofType(events, 'pr_reaction_started').map((e) => [e.number, e.kind]), [[2, 'check']], 'only #2 went to an agent');
    assert.deepEqual(ofType(events, 'pr_reaction_finished').map((e) => e.outcome), ['pushed']);
    assert.deepEqual(ofType(events, 'pull_request_escalated').map((e) => [e.number, e.red]), [[1, 'checks']], 'once per red stretch');
  });

  it("stacked: a child whose conflict comes from its parent waits for it; the parent's conflict is resolved first, then the child's", async () => {
    const plan = {
      goal: 'Greet with more warmth',
      tasks: [
        { id: 'exclaim', title: 'End greetings with an exclamation mark', description: 'Exclaim', acceptance: [], dependsOn: [], files: ['src/greet.js'] },
        { id: 'docs', title: 'Say so in the README', description: 'Docs', acceptance: [], dependsOn: ['exclaim'], files: ['README.md'] },
      ],
    };
    const scenario = {
      defaults: { delayMs: 0 },
      tasks: { exclaim: SCENARIO.tasks.exclaim, docs: { actor: [{ write: { 'README.md': '# greeter\n\nGreets people, with an exclamation mark.\n' } }] } },
    };
    const d = await delivered({ plan, scenario });
    approveGreenHeads(d);
    assert.equal((await cli(d, ['pr', '--stacked'])).code, 0);
    const [parent, child] = d.server.pulls;
    assert.equal(child!.base, parent!.head);
    // main and the parent's branch change the README's line apart: the parent conflicts with main, the child with its parent.
    pushAsPerson(d, 'main', { 'README.md': '# greeter\n\nGreets people warmly.\n' }, 'Warmer README');
    pushAsPerson(d, parent!.head, { 'README.md': '# greeter\n\nGreets people loudly.\n' }, 'Louder README');

    const done = await cli(d, ['watch', '--once', '--interval', '0.2', '--timeout', '180']);
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, /#2 its conflict comes from the pull request it is based on: waiting for #1/);
    const events = readEvents(d.r.dir);
    const started = ofType(events, 'pr_reaction_started');
    assert.deepEqual(started.map((e) => [e.number, e.kind]), [[1, 'conflict'], [2, 'conflict']]);
    const parentDone = ofType(events, 'pr_reaction_finished').find((e) => e.number === 1)!;
    assert.equal(parentDone.outcome, 'pushed');
    assert.ok(started[1]!.seq > parentDone.seq, "the child's conflict was taken up only once its parent's was resolved");
  });

  it('--auto-merge merges only on an approval from someone with write access, with the method the repository allows, at the head it saw', async () => {
    const clean = structuredClone(SCENARIO);
    const farewell = clean.tasks.farewell.actor[0]!.write;
    farewell['src/farewell.js'] = farewell['src/farewell.js']!.replace("  console.log('farewell', name);\n", '');
    const d = await delivered({ scenario: clean });
    d.server.mergeMethods.merge = false;
    d.server.setPermission('bob', 'read');
    d.server.setPermission('alice', 'write');
    assert.equal((await cli(d, ['pr'])).code, 0);
    const watch = startWatch(d, ['--auto-merge']);

    await until(watch, 'the waiting line', () => /#1 every check passes \(2\); waiting for a review/.test(watch.output()));
    // An outsider's approval is left alone; a collaborator who may only read approves: neither merges.
    d.server.addReview(1, { user: 'mallory', association: 'CONTRIBUTOR', state: 'APPROVED', body: 'ship it' });
    await until(watch, 'mallory ignored', () => ofType(readEvents(d.r.dir), 'pr_input_ignored').some((e) => e.author === 'mallory'));
    d.server.addReview(1, { user: 'bob', association: 'COLLABORATOR', state: 'APPROVED', body: 'ship it' });
    await until(watch, 'bob turned down', () => /#1 is green: every check passes \(2\) and bob approved; not merging: bob cannot write to the repository/.test(watch.output()));
    assert.equal(d.server.merges.length, 0);
    d.server.addReview(1, { user: 'alice', association: 'MEMBER', state: 'APPROVED', body: 'LGTM' });

    const done = await watch.done;
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, /Pull request #1 merged by Taskloom \(squashed, approved by alice\)/);
    assert.equal(d.server.merges.length, 1);
    assert.equal(d.server.merges[0]!.method, 'squash', 'merge commits are not allowed here');
    const put = d.server.requests.find((r) => r.method === 'PUT')!;
    const merged = ofType(readEvents(d.r.dir), 'pull_request_merged_by_taskloom');
    assert.deepEqual((put.body as { sha: string }).sha, merged[0]!.headSha, 'merged at the head it saw');
    assert.deepEqual(merged[0]!.approvedBy, ['alice']);
    assert.equal(execFileSync('git', ['--git-dir', d.bare, 'rev-parse', 'main'], { encoding: 'utf8' }).trim(), d.server.merges[0]!.commit);
  });

  it('says what --escalate-after takes when it is not a number of minutes', () => {
    const bad = runCli(['watch', '--escalate-after', 'soon']);
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /--escalate-after takes a number of minutes \(0: never\), not "soon"/);
    assert.match(bad.stderr, /taskloom watch \[RUN_ID .*\] \[--once\] .*\[--escalate-after MINUTES\]/);
  });
});
