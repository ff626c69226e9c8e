import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { RunInbox } from '../../src/engine/store/runInbox';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { green, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

// `taskloom send` to an actor that cannot take input mid-turn (the scripted agent, as Codex exec
// and command agents): both real CLI processes, the message queued for the actor's next turn.

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const MESSAGE = 'Please also add a line saying "steered".';

interface SetUp {
  r: TempRepo;
  args: string[];
  prompts: () => Array<{ role: string; attempt: number; prompt: string }>;
  /** Replaces the actor's steps (a resume reads the scenario again). */
  rescript: (actor: object[]) => void;
}

function setUp(actor: object[]): SetUp {
  const r = makeTempRepo();
  repos.push(r);
  const plan = { goal: 'steer', tasks: [task('t1')] };
  const scenario = { tasks: { t1: { actor, critic: [green, green] } }, promptLog: 'prompts.jsonl' };
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  const log = join(dirname(inputs['scenario.json']!), 'prompts.jsonl');
  const args = ['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'test -f done.txt', '--on-base-failure', 'required'];
  const prompts = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  const rescript = (steps: object[]) => writeFileSync(inputs['scenario.json']!, JSON.stringify({ ...scenario, tasks: { t1: { actor: steps, critic: [green] } } }));
  return { r, args, prompts, rescript };
}

const runDir = (r: TempRepo): string | undefined => {
  const runs = join(r.dir, '.taskloom', 'runs');
  const id = existsSync(runs) ? readdirSync(runs)[0] : undefined;
  return id ? join(runs, id) : undefined;
};
const events = (r: TempRepo): RunEvent[] =>
  readFileSync(join(runDir(r)!, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunEvent);

async function until(what: string, look: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!look()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const building = (r: TempRepo) => () => runDir(r) !== undefined && events(r).some((e) => e.type === 'task_transition' && e.to === 'BUILDING');

describe('taskloom send to an actor that cannot take input mid-turn', () => {
  it('queues the message for the next turn, sends the approved task back to its actor for it, and refuses one for a merged task', { timeout: 240_000 }, async () => {
    const { r, args, prompts } = setUp([
      { write: { 'done.txt': 'first\n' }, delayMs: 8000, say: ['thinking'] },
      write({ 'done.txt': 'first\nsteered\n' }),
    ]);
    const { done } = startCli(args);
    await until('the actor at work', building(r));
    const sent = runCli(['send', 't1', MESSAGE, '--cwd', r.dir]);
    const result = await done;

    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, /Queued for "t1"'s next actor turn: the scripted agent cannot take input mid-turn\./);
    const actorPrompts = prompts().filter((p) => p.role === 'actor');
    assert.equal(actorPrompts.length, 2, 'the critic approved the first attempt, and the message sent the task back');
    assert.doesNotMatch(actorPrompts[0]!.prompt, /steered/);
    assert.match(actorPrompts[1]!.prompt, /Messages from .+ while you worked:\n\nFrom .+:\nPlease also add a line saying "steered"\./);
    const log = events(r);
    assert.ok(log.some((e) => e.type === 'task_transition' && e.event === 'MESSAGE_SENT_BACK' && /^a message from /.test(e.reason)));
    assert.deepEqual(
      log.flatMap((e) => (e.type === 'task_message_delivered' ? [[e.how, e.attempt]] : [])),
      [['next_turn', 2]],
    );

    const refused = runCli(['send', 't1', 'one more thing', '--cwd', r.dir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Task "t1" takes no messages now: it is merged: its actor takes no more turns/);
  });

  it('records a request once when a crash left it in the inbox after it was recorded, and delivers it after the resume', { timeout: 240_000 }, async () => {
    const { r, args, prompts, rescript } = setUp([{ delayMs: 600_000, say: ['working for a long time'] }]);
    const { child, done } = startCli(args);
    await until('the actor at work', building(r));
    process.kill(-child.pid!, 'SIGKILL');
    await done;

    // The drive had recorded the request and died before removing its file.
    const request = new RunInbox(runDir(r)!).post({ kind: 'message', taskId: 't1', from: 'ada', text: MESSAGE });
    const last = events(r).at(-1)!;
    const recorded = { seq: last.seq + 1, runId: last.runId, at: new Date().toISOString(), v: 6, type: 'task_message', taskId: 't1', messageId: request.id, from: 'ada', text: MESSAGE };
    appendFileSync(join(runDir(r)!, 'events.jsonl'), `${JSON.stringify(recorded)}\n`);

    rescript([write({ 'done.txt': 'done\n' })]);
    const resumed = runCli(['resume', '--yes', '--cwd', r.dir]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    const log = events(r);
    assert.equal(log.filter((e) => e.type === 'task_message').length, 1);
    assert.deepEqual(readdirSync(join(runDir(r)!, 'inbox')), []);
    const actorPrompts = prompts().filter((p) => p.role === 'actor');
    assert.match(actorPrompts.at(-1)!.prompt, /Messages from ada while you worked:\n\nFrom ada:\nPlease also add a line/);
  });

  it('queues a message for a command agent (a CLI by template) and quotes it in its next turn', { timeout: 240_000 }, async () => {
    const r = makeTempRepo();
    repos.push(r);
    // The command agent: records each prompt it gets, works a while on the first, writes what the prompt asks.
    const agent = writeInputs({ 'agent.js': '' })['agent.js']!;
    const promptLog = join(dirname(agent), 'command-prompts.jsonl');
    writeFileSync(
      agent,
      `const fs = require('node:fs');
const prompt = fs.readFileSync(process.argv[2], 'utf8');
fs.appendFileSync(${JSON.stringify(promptLog)}, JSON.stringify(prompt) + '\\n');
const steered = prompt.includes('steered');
if (!steered) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6000);
fs.writeFileSync('done.txt', steered ? 'first\\nsteered\\n' : 'first\\n');
console.log('done');
`,
    );
    const inputs = writeInputs({ 'plan.json': { goal: 'steer', tasks: [task('t1')] }, 'scenario.json': { tasks: { t1: { critic: [green, green] } } } });
    const { done } = startCli([
      'run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--yes', '--gate', 'test -f done.txt', '--on-base-failure', 'required',
      '--actor-agent', 'command', '--command', JSON.stringify([process.execPath, agent, '{prompt_file}']),
      '--critic-agent', 'scripted', '--script', inputs['scenario.json']!,
      // The agent's script and its prompt log live beside the repository, which a confined agent cannot see.
      '--sandbox', 'off',
    ]);
    await until('the actor at work', building(r));
    const sent = runCli(['send', 't1', MESSAGE, '--cwd', r.dir]);
    const result = await done;

    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(sent.stdout, /Queued for "t1"'s next actor turn: a command agent cannot take input mid-turn\./);
    const prompts = readFileSync(promptLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as string);
    assert.equal(prompts.length, 2, 'a second turn, for the message');
    assert.match(prompts[1]!, /Messages from .+ while you worked:\n\nFrom .+:\nPlease also add a line saying "steered"\./);
    const runId = readdirSync(join(r.dir, '.taskloom', 'runs'))[0]!;
    assert.equal(execFileSync('git', ['-C', r.dir, 'show', `taskloom/${runId}/integration:done.txt`], { encoding: 'utf8' }), 'first\nsteered\n', 'what the second turn wrote is what merged');
  });
});
