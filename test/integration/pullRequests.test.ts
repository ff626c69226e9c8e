import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { startCli, type CliResult } from '../helpers/cli';
import { delivered } from '../helpers/deliveredInTests';
import type { Delivery } from '../helpers/deliveryRepo';
import { readEvents } from '../faults/faultHelpers';

/**
 * `taskloom pr` and `taskloom watch` against a scripted GitHub on loopback, with a real bare
 * repository as the remote and a CI that really lints and tests each pushed head. The CLI runs
 * as a child process that does not block this one: the scripted GitHub answers from here.
 */

const cli = (d: Delivery, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  startCli([...args, '--cwd', d.r.dir], { ...d.env, ...env }).done;

const remoteLog = (d: Delivery, branch: string) =>
  execFileSync('git', ['--git-dir', d.bare, 'log', '--format=%s', `main..${branch}`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('taskloom pr', () => {
  it('pushes the run and opens a pull request with the ledger as its body; a second pr updates it, never a second one', async () => {
    const d = await delivered();
    const opened = await cli(d, ['pr']);
    assert.equal(opened.code, 0, opened.stdout + opened.stderr);
    assert.match(opened.stdout, /Pull request #1 opened: https:\/\/github\.example\/octo\/greeter\/pull\/1/);
    assert.equal(d.server.pulls.length, 1);
    const [pull] = d.server.pulls;
    assert.equal(pull!.title, 'Greet with more warmth');
    assert.equal(pull!.base, 'main');
    assert.equal(pull!.head, `taskloom/${d.runId}/integration`);
    assert.match(pull!.body, /\| `exclaim` \| End greetings with an exclamation mark \| merged \| 1 \|/);
    assert.match(pull!.body, /\*\*Integration gate:\*\* passed \(`node --test`\)/);
    assert.equal(
      execFileSync('git', ['--git-dir', d.bare, 'rev-parse', pull!.head], { encoding: 'utf8' }).trim(),
      d.r.git(['rev-parse', `taskloom/${d.runId}/integration`]),
      'the remote branch is the verified integration head',
    );

    const again = await cli(d, ['pr']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /Pull request #1 updated/);
    assert.equal(d.server.pulls.length, 1, 'no second pull request');
    assert.equal(ofType(readEvents(d.r.dir), 'pull_request').length, 2);
  });

  it('with --stacked opens one pull request per task, each based on the one before it', async () => {
    const d = await delivered();
    const res = await cli(d, ['pr', '--stacked']);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.equal(d.server.pulls.length, 2);
    const [first, second] = d.server.pulls;
    assert.equal(first!.base, 'main');
    assert.equal(second!.base, first!.head, "the second task's pull request is based on the first's branch");
    assert.deepEqual([first!.title, second!.title].sort(), ['End greetings with an exclamation mark', 'Say goodbye too']);
    assert.equal(remoteLog(d, second!.head).length >= remoteLog(d, first!.head).length + 1, true);
  });

  it('says clearly what is wrong, and loses nothing: no token, a refused token, an unknown repository, the rate limit, a rejected push', async () => {
    const d = await delivered();
    const noToken = await cli(d, ['pr'], { GITHUB_TOKEN: '', GH_TOKEN: '', PATH: '/usr/bin:/bin' });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /No GitHub token: GITHUB_TOKEN and GH_TOKEN are not set/);
    assert.match(noToken.stderr, /gh auth login/);

    d.server.failNext(401);
    const refused = await cli(d, ['pr']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /GitHub refused the token \(401: Bad credentials\)/);

    const unknown = await cli(d, ['pr', '--repo', 'octo/nothing']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /GitHub has no repository octo\/nothing on http:\/\/127\.0\.0\.1:\d+, or the token cannot see it/);

    d.server.failNext(403, 1, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1893456000' });
    const limited = await cli(d, ['pr']);
    assert.equal(limited.code, 2);
    assert.match(limited.stderr, /GitHub's rate limit is used up until 2030-01-01T00:00:00.000Z/);
    assert.match(limited.stderr, /nothing was lost/);
    assert.equal(d.server.pulls.length, 0, 'no pull request was opened by any of them');

    // Someone else pushed to the run's branch on the remote: Taskloom does not force over it.
    const opened = await cli(d, ['pr']);
    assert.equal(opened.code, 0, opened.stderr);
    const branch = d.server.pulls[0]!.head;
    const other = mkdtempSync(join(tmpdir(), 'taskloom-other-'));
    try {
      execFileSync('git', ['clone', '-q', '-b', branch, d.bare, other]);
      writeFileSync(join(other, 'NOTES.md'), 'a colleague was here\n');
      execFileSync('git', ['-C', other, 'add', '-A']);
      execFileSync('git', ['-C', other, '-c', 'user.name=Colleague', '-c', 'user.email=c@example.com', 'commit', '-qm', 'Colleague notes']);
      execFileSync('git', ['-C', other, 'push', '-q', 'origin', branch]);
      const rejected = await cli(d, ['pr']);
      assert.equal(rejected.code, 2);
      assert.match(rejected.stderr, /origin refused the push of taskloom\/.*\/integration/);
      assert.match(rejected.stderr, /Taskloom does not force over them/);
      assert.equal(remoteLog(d, branch)[0], 'Colleague notes', "the colleague's commit is still there");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
