import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CommandRunner, validateCommandTemplate } from '../../src/engine/agents/command/commandRunner';
import type { RunnerActivity, RunnerInput } from '../../src/engine/agents/runner';
import { isProcessAlive } from '../../src/engine/process/liveness';
import { runnerInput } from '../helpers/runnerInput';
import { scratchFolder } from '../helpers/fileScoped';

// A real node script plays the agent: it reads its prompt (stdin or the prompt file), reports
// what it was given in agent-report.json, and then does what its mode says.
const { dir: tmp } = scratchFolder('command');

const AGENT = join(tmp, 'agent.js');
writeFileSync(
  AGENT,
  String.raw`
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const [mode, ...rest] = process.argv.slice(2);
const promptFile = rest.find((a) => a.startsWith('--prompt-file='))?.slice('--prompt-file='.length);
const stdin = fs.readFileSync(0, 'utf8');
const prompt = promptFile ? fs.readFileSync(promptFile, 'utf8') : stdin;
fs.writeFileSync('agent-report.json', JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), stdin, promptFile, prompt }));
switch (mode) {
  case 'edit':
    console.log('reading the task');
    fs.writeFileSync('result.txt', prompt.toUpperCase());
    console.error('wrote result.txt');
    console.log('Done: wrote result.txt');
    console.log(JSON.stringify({ taskloom_usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 10, costUsd: 0.0042, model: 'my-model', sessionId: 's-1' } }));
    break;
  case 'verdict':
    console.log('Looking at the diff…');
    console.log('{"verdict": "approve", "notes": ["fine"]}');
    break;
  case 'fail':
    for (let i = 1; i <= 30; i++) console.log('step ' + i);
    console.error('fatal: the agent broke');
    process.exit(3);
  case 'hang': {
    // One helper in the process group, one in a session of its own (out of the group's reach).
    const inGroup = spawn('sleep', ['60'], { stdio: 'ignore' });
    const escaped = spawn('sleep', ['61'], { stdio: 'ignore', detached: true });
    fs.writeFileSync('pids.json', JSON.stringify([process.pid, inGroup.pid, escaped.pid]));
    console.log('started helpers');
    setInterval(() => {}, 1000);
    break;
  }
  default:
    console.error('unknown mode ' + mode);
    process.exit(2);
}
`,
);

let counter = 0;
function workdir(): string {
  const dir = join(tmp, `case-${++counter}`);
  mkdirSync(dir);
  return dir;
}

const input = (cwd: string, fields: Partial<RunnerInput> = {}): RunnerInput => runnerInput(cwd, { prompt: 'make it loud', idleTimeoutMs: 15_000, ...fields });

const report = (cwd: string) => JSON.parse(readFileSync(join(cwd, 'agent-report.json'), 'utf8'));

describe('CommandRunner', { concurrency: 4, timeout: 60_000 }, () => {
  it('prompt on stdin; stdout is the answer; a taskloom_usage line is the usage', async () => {
    const cwd = workdir();
    const runner = new CommandRunner({ argv: [process.execPath, AGENT, 'edit', '--role={role}', '--cwd', '{cwd}', '{model}'], killGraceMs: 300 });
    const activities: RunnerActivity[] = [];
    const result = await runner.run(input(cwd, { model: 'm-1' }), (a) => activities.push(a));
    assert.equal(result.status, 'ok', result.error);
    assert.equal(result.text, 'reading the task\nDone: wrote result.txt');
    assert.deepEqual(result.usage, { inputTokens: 120, outputTokens: 30, cacheReadTokens: 10, cacheWriteTokens: 0, costUsd: 0.0042 });
    assert.equal(result.model, 'my-model');
    assert.equal(result.sessionId, 's-1');
    assert.equal(result.structured, undefined);
    assert.equal(readFileSync(join(cwd, 'result.txt'), 'utf8'), 'MAKE IT LOUD');
    const r = report(cwd);
    assert.equal(r.stdin, 'make it loud');
    assert.deepEqual(r.argv, ['edit', '--role=actor', '--cwd', cwd, 'm-1']);
    assert.deepEqual(
      activities.map((a) => `${a.kind}: ${a.message}`).sort(),
      ['status: wrote result.txt', 'text: Done: wrote result.txt', 'text: reading the task'].sort(),
    );
  });

  it('{prompt_file}: the prompt in a temp file (removed afterwards), stdin empty', async () => {
    const cwd = workdir();
    const runner = new CommandRunner({ argv: [process.execPath, AGENT, 'edit', '--prompt-file={prompt_file}'] });
    const prompt = 'multi\nline prompt with "quotes" and $VARS';
    const result = await runner.run(input(cwd, { prompt }));
    assert.equal(result.status, 'ok', result.error);
    const r = report(cwd);
    assert.equal(r.prompt, prompt);
    assert.equal(r.stdin, '');
    assert.ok(!r.argv.join(' ').includes('multi'), 'the prompt is not an argument');
    assert.equal(existsSync(r.promptFile), false, 'the prompt file is removed after the call');
    assert.equal(readFileSync(join(cwd, 'result.txt'), 'utf8'), prompt.toUpperCase());
  });

  it('structured output: the JSON in the answer when a schema is asked for; usage unknown is zero', async () => {
    const cwd = workdir();
    const runner = new CommandRunner({ argv: [process.execPath, AGENT, 'verdict'] });
    const result = await runner.run(input(cwd, { role: 'critic', access: 'read-only', outputSchema: { type: 'object' } }));
    assert.equal(result.status, 'ok', result.error);
    assert.deepEqual(result.structured, { verdict: 'approve', notes: ['fine'] });
    assert.deepEqual(result.usage, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
    assert.equal(result.model, 'unknown');
  });

  it('non-zero exit → agent_error with the last lines', async () => {
    const cwd = workdir();
    const result = await new CommandRunner({ argv: [process.execPath, AGENT, 'fail'] }).run(input(cwd));
    assert.equal(result.status, 'agent_error');
    assert.match(result.error ?? '', /exited with code 3$/);
    assert.equal(result.cause, 'exited');
    assert.match(result.lastOutput ?? '', /step 30/);
    assert.match(result.lastOutput ?? '', /fatal: the agent broke/);
    assert.doesNotMatch(result.lastOutput ?? '', /step 5\n/, 'only the last lines');
  });

  it('no output for too long → idle_timeout; no process left, not even one in its own session', async () => {
    const cwd = workdir();
    const runner = new CommandRunner({ argv: [process.execPath, AGENT, 'hang'], killGraceMs: 300 });
    const result = await runner.run(input(cwd, { idleTimeoutMs: 1000 }));
    assert.equal(result.status, 'idle_timeout');
    assert.match(result.error ?? '', /no activity for 1000 ms/);
    assert.equal(result.cause, 'stuck');
    assert.match(result.lastOutput ?? '', /started helpers/);
    const pids: number[] = JSON.parse(readFileSync(join(cwd, 'pids.json'), 'utf8'));
    assert.equal(pids.length, 3);
    assert.deepEqual(pids.filter(isProcessAlive), []);
  });

  // The agent hangs: a cancel that does not stop it fails by the timeout.
  it('cancel → cancelled, processes gone', { timeout: 60_000 }, async () => {
    const cwd = workdir();
    const controller = new AbortController();
    const runner = new CommandRunner({ argv: [process.execPath, AGENT, 'hang'], killGraceMs: 300 });
    const result = await runner.run(input(cwd, { signal: controller.signal }), (a) => {
      if (a.message === 'started helpers') controller.abort();
    });
    assert.equal(result.status, 'cancelled');
    const pids: number[] = JSON.parse(readFileSync(join(cwd, 'pids.json'), 'utf8'));
    assert.deepEqual(pids.filter(isProcessAlive), []);
  });

  it('a command that does not exist → spawn_failed; {model} without a model → spawn_failed', async () => {
    const cwd = workdir();
    const missing = await new CommandRunner({ argv: ['taskloom-no-such-agent', '{prompt_file}'] }).run(input(cwd));
    assert.equal(missing.status, 'spawn_failed');
    assert.match(missing.error ?? '', /taskloom-no-such-agent/);
    const noModel = await new CommandRunner({ argv: [process.execPath, AGENT, 'edit', '--model', '{model}'] }).run(input(cwd));
    assert.equal(noModel.status, 'spawn_failed');
    assert.match(noModel.error ?? '', /\{model\}.*no model/);
    assert.equal(existsSync(join(cwd, 'agent-report.json')), false, 'nothing ran');
  });

  it('validates the template', () => {
    assert.throws(() => new CommandRunner({ argv: [] }), /invalid agent command template: the agent command is empty/);
    assert.throws(() => new CommandRunner({ argv: ['aider', '--file', '{promptfile}'] }), /unknown placeholder \{promptfile\} in argument 2/);
    assert.throws(() => new CommandRunner({ argv: ['  '] }), /argument 0\) is empty/);
    assert.deepEqual(validateCommandTemplate(['gemini', '-p', '{prompt_file}', '--model={model}', '{cwd}', '{role}', '{access}', '{"json": 1}']), []);
    assert.equal(validateCommandTemplate('aider' as unknown).length, 1);
  });
});
