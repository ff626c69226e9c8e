import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { runCli, startCli, writeInputs, type CliResult } from '../helpers/cli';
import { notifyReceiver } from '../helpers/notifyReceiver';
import { green, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
const closers: Array<() => Promise<void>> = [];
const receiver = async (answer?: (n: number) => number | 'never') => {
  const target = await notifyReceiver(answer);
  closers.push(target.close);
  return target;
};
after(async () => {
  repos.forEach((r) => r.cleanup());
  await Promise.all(closers.map((close) => close()));
});

/** `taskloom run` with the scripted agent, as a child process (the receivers live in this one), timed. */
async function run(plan: object, scenario: object, notify: string[], env: NodeJS.ProcessEnv = {}, flags: string[] = []) {
  const r = makeTempRepo();
  repos.push(r);
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  const started = Date.now();
  const args = ['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true', ...flags];
  const result: CliResult = await startCli([...args, ...notify.flatMap((url) => ['--notify', url])], env).done;
  const runsDir = join(r.dir, '.taskloom', 'runs');
  const runId = readdirSync(runsDir)[0]!;
  const events = readFileSync(join(runsDir, runId, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RunEvent);
  const runMs = Date.parse(events.find((e) => e.type === 'run_finished')!.at) - Date.parse(events[0]!.at);
  return { dir: r.dir, runId, result, events, runMs, processMs: Date.now() - started };
}

const ONE_TASK = { goal: 'one file', tasks: [task('only')] };
const ONE_TASK_GREEN = { tasks: { only: { actor: [write({ 'only.txt': 'ok\n' })], critic: [green] } } };

/** Every file under `dir`, recursively, with its text. */
function filesUnder(dir: string): Array<[string, string]> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => [path, readFileSync(path, 'latin1')]);
}

describe('notifications: word of a run to webhooks, Slack and ntfy', () => {
  it('a target that is not one is refused before anything runs, with the way on and without its token', () => {
    const r = makeTempRepo();
    repos.push(r);
    const result = runCli(['run', '--cwd', r.dir, '--goal', 'x', '--notify', 'teams+https://example.com/hook-token-8c1f']);
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /Cannot send notifications to "teams\+https:\/\/example\.com\/…": "teams" is not a notification format/);
    assert.match(result.stderr, /ntfy:\/\/HOST\/TOPIC/);
    assert.ok(!result.stderr.includes('hook-token-8c1f'));
  });

  it('tasks that need you at once are one message per target, in each target’s own format', async () => {
    const target = await receiver();
    const plan = { goal: 'three at once', tasks: [task('a'), task('b'), task('c')] };
    const scenario = { tasks: Object.fromEntries(['a', 'b', 'c'].map((id) => [id, { actor: [{ fail: `cannot do ${id}`, delayMs: 0 }] }])) };
    const { result, runId } = await run(plan, scenario, [`${target.base}/hook`, `slack+${target.base}/slack`, `ntfy+${target.base}/alerts-topic`], { TASKLOOM_MAX_PARALLEL: '3' });
    assert.equal(result.code, 1, result.stdout + result.stderr);

    const at = (path: string) => target.accepted.filter((received) => received.path === path);
    // In the order they stopped, which parallel tasks do not fix.
    const needYou = (text: string) => /3 tasks need you: (a|b|c), (?!\1)(a|b|c), (?!\1|\2)(a|b|c)/.test(text);
    const webhook = at('/hook').map((received) => JSON.parse(received.body));
    assert.equal(webhook.filter((body) => body.lines.some(needYou)).length, 1, JSON.stringify(webhook));
    const last = webhook[webhook.length - 1];
    assert.equal(last.source, 'taskloom');
    assert.equal(last.run.id, runId);
    assert.equal(last.run.goal, 'three at once');
    assert.equal(last.state, 'needs_human');
    assert.equal(last.urgent, true);
    assert.match(last.reason, /The run stopped: it needs you/);
    assert.equal(at('/hook')[0]!.headers['content-type'], 'application/json');

    const slack = at('/slack').map((received) => JSON.parse(received.body));
    assert.equal(slack.filter((body) => needYou(body.text)).length, 1, JSON.stringify(slack));
    assert.match(slack[0].text, new RegExp(`^Taskloom ${runId}: three at once\n`));
    assert.equal(slack[0].blocks[0].type, 'section');

    const ntfy = at('/alerts-topic');
    assert.equal(ntfy.filter((received) => needYou(received.body)).length, 1, ntfy.map((r) => r.body).join('\n---\n'));
    assert.equal(ntfy[0]!.headers.priority, 'high');
    assert.equal(ntfy[0]!.headers.tags, 'warning,taskloom');
    assert.equal(ntfy[0]!.headers.title, `=?UTF-8?B?${Buffer.from(`Taskloom ${runId}: three at once`).toString('base64')}?=`);
  });

  it('a task that spends 80 % of its task budget is word once, naming the task', async () => {
    const target = await receiver();
    const plan = { goal: 'a costly task', tasks: [task('costly'), task('cheap')] };
    const scenario = {
      tasks: {
        costly: { actor: [{ write: { 'costly.txt': 'ok\n' }, costUsd: 0.85, delayMs: 0 }], critic: [green] },
        cheap: { actor: [{ write: { 'cheap.txt': 'ok\n' }, costUsd: 0.1, delayMs: 0 }], critic: [green] },
      },
    };
    const { result } = await run(plan, scenario, [`${target.base}/hook`], {}, ['--task-budget-usd', '1']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const lines = target.accepted.map((received) => JSON.parse(received.body)).flatMap((body) => body.lines as string[]);
    assert.deepEqual(lines.filter((line) => /budget/.test(line)), ['Task costly spent $0.85 of its $1.00 budget']);
  });

  it('a receiver that answers 500 then 200 gets the message once, and no warning is recorded', async () => {
    const flaky = await receiver((n) => (n === 1 ? 500 : 200));
    const { result, events } = await run(ONE_TASK, ONE_TASK_GREEN, [`${flaky.base}/hook`]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(flaky.requests(), 2);
    assert.equal(flaky.accepted.length, 1);
    assert.equal(JSON.parse(flaky.accepted[0]!.body).state, 'completed');
    assert.deepEqual(events.filter((e) => e.type === 'warning'), []);
  });

  it('a receiver that always fails is a warning in the run, and the URL’s token is in none of its files', async () => {
    const token = 'T0KEN-in-the-path-5f3a9c';
    const broken = await receiver(() => 500);
    const { result, events, dir } = await run(ONE_TASK, ONE_TASK_GREEN, [], { TASKLOOM_NOTIFY: `${broken.base}/hooks/${token}?key=${token}x` });
    assert.equal(result.code, 0, 'the run itself succeeded');
    assert.equal(broken.requests(), 3, 'three tries');
    const warnings = events.filter((e) => e.type === 'warning').map((e) => e.message);
    assert.deepEqual(warnings, [`notification to ${broken.base}/… not delivered after 3 tries (the receiver answered 500)`]);
    for (const [path, text] of filesUnder(join(dir, '.taskloom'))) assert.ok(!text.includes(token), `${path} holds the token`);
    assert.ok(!(result.stdout + result.stderr).includes(token));
  });

  it('a receiver that never answers does not slow the run: the message is abandoned when the CLI ends', async () => {
    const silent = await receiver(() => 'never');
    const without = await run(ONE_TASK, ONE_TASK_GREEN, []);
    const withSilent = await run(ONE_TASK, ONE_TASK_GREEN, [`${silent.base}/hook`]);
    console.log(
      `run wall time without a target ${without.runMs} ms (process ${without.processMs} ms); ` +
        `with a target that never answers ${withSilent.runMs} ms (process ${withSilent.processMs} ms)`,
    );
    assert.equal(withSilent.result.code, 0, withSilent.result.stdout + withSilent.result.stderr);
    assert.equal(withSilent.events.filter((e) => e.type === 'run_finished').length, 1);
    assert.equal(silent.abandoned(), 1, 'the sender gave up on the request');
    assert.match(withSilent.events.filter((e) => e.type === 'warning').map((e) => e.message).join('\n'), /notification to http:\/\/127\.0\.0\.1:\d+\/… abandoned when Taskloom stopped/);
  });
});
