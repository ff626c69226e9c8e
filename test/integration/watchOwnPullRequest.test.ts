import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { startCli, writeInputs, type CliResult } from '../helpers/cli';
import { deliveredRun, type Delivery } from '../helpers/deliveryRepo';

/**
 * `taskloom watch --pr N` keeps a person's own pull request green — a branch they pushed, which
 * Taskloom did not open — against a scripted GitHub whose CI really lints and tests each head: its
 * failing check is fixed by an agent through the gate and the critic and pushed to that branch, and
 * nowhere else; asked again, the same run is used; a fork's or a closed pull request is refused.
 */

const deliveries: Delivery[] = [];
after(async () => {
  for (const d of deliveries) await d.cleanup();
});

const BRANCH = 'ada/shout';
const SHOUT = "function shout(text) {\n  console.log('shouting', text);\n  return text.toUpperCase();\n}\n\nmodule.exports = { shout };\n";
const SCENARIO = {
  defaults: { delayMs: 0 },
  tasks: {},
  pullRequest: { actor: [{ patch: [{ path: 'src/shout.js', find: "  console.log('shouting', text);\n", replace: '' }], text: 'removed the debugging console.log from shout' }] },
};

const cli = (d: Delivery, args: string[]): Promise<CliResult> => startCli([...args, '--cwd', d.r.dir], d.env).done;
const refs = (d: Delivery) => execFileSync('git', ['--git-dir', d.bare, 'for-each-ref', '--format=%(refname) %(objectname)'], { encoding: 'utf8' }).trim().split('\n');
const runEvents = (d: Delivery, runId: string): RunEvent[] =>
  readFileSync(join(d.r.dir, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RunEvent);
const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

/** A repository on the scripted GitHub where Ada pushed BRANCH (lint fails on it) and opened pull request #1 from it. */
async function adasPullRequest(): Promise<{ d: Delivery; watch: string[] }> {
  const d = await deliveredRun();
  deliveries.push(d);
  const clone = mkdtempSync(join(tmpdir(), 'taskloom-ada-'));
  try {
    execFileSync('git', ['clone', '-q', d.bare, clone]);
    execFileSync('git', ['-C', clone, 'checkout', '-q', '-b', BRANCH]);
    mkdirSync(join(clone, 'src'), { recursive: true });
    writeFileSync(join(clone, 'src', 'shout.js'), SHOUT);
    writeFileSync(join(clone, 'test', 'shout.test.js'), "const test = require('node:test');\nconst assert = require('node:assert');\nconst { shout } = require('../src/shout');\n\ntest('shouts', () => assert.strictEqual(shout('hi'), 'HI'));\n");
    execFileSync('git', ['-C', clone, 'add', '-A']);
    execFileSync('git', ['-C', clone, '-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', 'commit', '-qm', 'Shout']);
    execFileSync('git', ['-C', clone, 'push', '-q', 'origin', BRANCH]);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
  d.server.pulls.push({ number: 1, head: BRANCH, base: 'main', title: 'Shout', body: '', draft: false, state: 'open', merged: false });
  d.server.onHead((sha, pull) => {
    const checks = d.ciChecks(sha);
    if (checks.every((c) => c.conclusion === 'success')) d.server.addReview(pull.number, { user: 'alice', association: 'MEMBER', state: 'APPROVED', body: 'LGTM' });
    return checks;
  });
  const inputs = writeInputs({ 'scenario.json': SCENARIO });
  return { d, watch: ['watch', '--once', '--interval', '0.2', '--timeout', '90', '--script', inputs['scenario.json']!, '--gate', 'node --test'] };
}

describe('taskloom watch --pr', () => {
  it("fixes the failing check of a person's own pull request on its own branch, pushes nothing elsewhere, and reuses its run", async () => {
    const { d, watch } = await adasPullRequest();
    const opened = execFileSync('git', ['--git-dir', d.bare, 'rev-parse', BRANCH], { encoding: 'utf8' }).trim();
    const before = refs(d).filter((r) => !r.startsWith(`refs/heads/${BRANCH} `));

    const watched = await cli(d, [...watch, '--pr', '1']);
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    const runId = /run (\S+) made to keep it green/.exec(watched.stdout)?.[1];
    assert.ok(runId, watched.stdout);
    assert.match(watched.stdout, /fixes are pushed to ada\/shout only/);
    assert.match(watched.stdout, /reaction 1: failing check\(s\): lint \(fixed by the actor of the integration\)/);
    assert.match(watched.stdout, /#1 is green: every check passes \(2\) and alice approved/);

    assert.deepEqual(
      execFileSync('git', ['--git-dir', d.bare, 'log', '--format=%s', `${opened}..${BRANCH}`], { encoding: 'utf8' }).trim().split('\n'),
      ['Fix the failing check "lint"'],
      "the fix is on Ada's branch, on top of her commit",
    );
    assert.doesNotMatch(execFileSync('git', ['--git-dir', d.bare, 'show', `${BRANCH}:src/shout.js`], { encoding: 'utf8' }), /console\.log/);
    assert.deepEqual(refs(d).filter((r) => !r.startsWith(`refs/heads/${BRANCH} `)), before, 'no other branch was pushed or moved');
    assert.deepEqual(d.ciRuns.map((c) => [c.lint, c.test]).slice(-2), [[false, true], [true, true]]);

    const runs = await cli(d, ['runs']);
    assert.match(runs.stdout, new RegExp(`${runId}\\s+watching a pull request.*Keep pull request #1 green \\(ada/shout\\)`));

    const again = await cli(d, [...watch, '--pr', 'https://github.example/octo/greeter/pull/1']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, new RegExp(`run ${runId} keeps it green, as before`));
    const listed = JSON.parse((await cli(d, ['runs', '--json'])).stdout) as Array<{ runId: string }>;
    assert.equal(listed.length, 2, 'the delivered run and the one for Ada\'s pull request: no second one');
    const events = runEvents(d, runId);
    assert.equal(ofType(events, 'pr_reaction_started').length, 1, 'nothing reacted to twice');
    assert.deepEqual(ofType(events, 'pull_request').map((e) => e.action), ['adopted']);
  });

  it("refuses a fork's pull request and a closed one, saying why, and makes no run", async () => {
    const { d, watch } = await adasPullRequest();
    d.server.pulls[0]!.fork = 'mallory/greeter';
    const fork = await cli(d, [...watch, '--pr', '#1']);
    assert.notEqual(fork.code, 0);
    assert.match(fork.stderr, /Pull request #1 comes from a fork \(mallory\/greeter\), not from octo\/greeter/);
    assert.match(fork.stderr, /pushes fixes only to a branch of the repository it works in/);

    d.server.pulls[0]!.fork = undefined;
    d.server.pulls[0]!.state = 'closed';
    const closed = await cli(d, [...watch, '--pr', '1']);
    assert.notEqual(closed.code, 0);
    assert.match(closed.stderr, /Pull request #1 is closed: there is nothing to keep green/);

    const unreadable = await cli(d, [...watch, '--pr', 'the shout one']);
    assert.match(unreadable.stderr, /"the shout one" is not a pull request number or URL/);
    const listed = JSON.parse((await cli(d, ['runs', '--json'])).stdout) as unknown[];
    assert.equal(listed.length, 1, 'only the delivered run');
  });
});
