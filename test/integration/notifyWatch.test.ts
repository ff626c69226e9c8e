import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startCli, type CliResult } from '../helpers/cli';
import { deliveredRun, type Delivery } from '../helpers/deliveryRepo';
import { notifyReceiver } from '../helpers/notifyReceiver';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const cli = (d: Delivery, args: string[]): Promise<CliResult> => startCli([...args, '--cwd', d.r.dir], d.env).done;

describe('notifications from taskloom watch', () => {
  it('a watched pull request whose failing check is fixed sends word that its checks turned green', async () => {
    const d = await deliveredRun({ reviewer: 'alice' });
    const target = await notifyReceiver();
    cleanups.push(d.cleanup, target.close);
    const pr = await cli(d, ['pr']);
    assert.equal(pr.code, 0, pr.stdout + pr.stderr);

    // CI fails lint on the opened head; the actor's fix turns it green (word goes out once, not again at the review's fix).
    const watched = await cli(d, ['watch', '--once', '--interval', '0.2', '--timeout', '90', '--notify', `${target.base}/hook`]);
    // alice asks for a change once CI is green, and approves the fix: then --once is done.
    assert.equal(watched.code, 0, watched.stdout + watched.stderr);
    const bodies = target.accepted.map((received) => JSON.parse(received.body));
    const lines = bodies.flatMap((body) => body.lines as string[]);
    assert.deepEqual(lines.filter((line) => line.startsWith('Pull request #1: checks')), ['Pull request #1: checks turned green'], JSON.stringify(bodies));
    const green = bodies.find((body) => body.lines.includes('Pull request #1: checks turned green'));
    assert.equal(green.run.id, d.runId);
    assert.equal(green.link, 'https://github.example/octo/greeter/pull/1');
  });
});
