import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResponseError } from 'vscode-jsonrpc/node';
import type { WebhookBody } from '../../src/engine/notify/notifyRequest';
import { ApprovePlanRequest, SetNotifyTargetsRequest, StartGoalRequest } from '../../src/protocol/engineProtocol';
import { EngineServerProcess } from '../helpers/engineServer';
import { notifyReceiver } from '../helpers/notifyReceiver';
import { scriptedSettings } from '../helpers/scriptedSettings';
import { task } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * The editor's notification targets (taskloom.notify), as the extension hands them to the bundled
 * engine server: word of the runs the editor drives reaches them, a failed delivery is a warning
 * the run view shows, and no URL is written anywhere.
 */

const repos: TempRepo[] = [];
const closers: Array<() => Promise<void>> = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
  repos.forEach((r) => r.cleanup());
});

async function until<T>(what: string, value: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = value();
    if (got !== undefined) return got;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe('notifications from the runs the editor drives', () => {
  it('sends plan ready and the end of the run to the targets the editor set; a receiver that fails is a warning in the run, and no URL is written', async () => {
    const server = await EngineServerProcess.start();
    closers.push(() => server.stop());
    const target = await notifyReceiver();
    const down = await notifyReceiver(() => 500);
    closers.push(target.close, down.close);
    const r = makeTempRepo();
    repos.push(r);

    const badTarget = server.request(SetNotifyTargetsRequest.type, { targets: ['teams+https://example.com/hook-token-8c1f'] });
    await assert.rejects(badTarget, (error: ResponseError<unknown>) => {
      assert.match(error.message, /Cannot send notifications to "teams\+https:\/\/example\.com\/…": "teams" is not a notification format/);
      assert.ok(!error.message.includes('hook-token-8c1f'));
      return true;
    });
    const secretPath = '/hooks/T0SECRET8c1f';
    await server.request(SetNotifyTargetsRequest.type, { targets: [`${target.base}${secretPath}`, `${down.base}/down-token-5d2e`] });

    const scenario = {
      defaults: { delayMs: 0 },
      planner: [{ output: { goal: 'x', rationale: 'one step', tasks: [task('only')] } }],
      fallback: { actor: [{ write: { 'only.txt': 'ok\n' } }], critic: [{ verdict: { decision: 'green', summary: 'ok', findings: [] } }] },
    };
    const started = await server.request(StartGoalRequest.type, { folder: r.dir, goal: 'add a file', settings: scriptedSettings(scenario) });
    const bodies = () => target.accepted.filter((received) => received.path === secretPath).map((received) => JSON.parse(received.body) as WebhookBody);

    // Nobody approved it: once the burst window is over, the plan's waiting is word of its own.
    const planReady = await until('plan ready', () => bodies().find((body) => body.state === 'awaiting_approval'));
    assert.equal(planReady.run.id, started.runId);
    assert.equal(planReady.urgent, true);

    await server.request(ApprovePlanRequest.type, { folder: r.dir, runId: started.runId, by: 'human' });
    const end = await server.waitForEnd(started.runId);
    assert.equal(end.type === 'run_finished' && end.status, 'completed');
    const finished = await until('run finished', () => bodies().find((body) => body.state === 'completed'));
    assert.equal(finished.run.goal, 'add a file');

    // The drive's end waited for the deliveries: the failed one is in the events the run view folds.
    const warning = await server
      .waitForEvents(started.runId, (events) => events.some((e) => e.type === 'warning' && /not delivered/.test(e.message)))
      .then((events) => events.find((e) => e.type === 'warning' && /not delivered/.test(e.message)));
    assert.match(warning!.type === 'warning' ? warning!.message : '', /notification to http:\/\/127\.0\.0\.1:\d+\/… not delivered after 3 tries \(the receiver answered 500\)/);
    assert.equal(down.accepted.length, 0);

    const written = readFileSync(join(r.dir, '.taskloom', 'runs', started.runId, 'events.jsonl'), 'utf8') + readFileSync(join(r.dir, '.taskloom', 'runs', started.runId, 'DECISIONS.md'), 'utf8');
    for (const secret of ['T0SECRET8c1f', 'down-token-5d2e']) {
      assert.ok(!written.includes(secret), `${secret} is not in the run's files`);
      assert.ok(!server.stderr.includes(secret) && !server.log.some((line) => line.message.includes(secret)), `${secret} is not in the server's log`);
    }
  });
});
