import assert from 'node:assert/strict';
import { launchUnconfined } from '../../src/engine/process/launcher';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGate, type RunGateOptions } from '../../src/engine/gate/runGate';
import { isProcessAlive } from '../../src/engine/process/liveness';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A tiny npm package with a real `node --test` suite, as an agent's worktree would hold. */
function nodeProject(testBody: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-gate-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sample', private: true, scripts: { test: 'node --test' } }));
  mkdirSync(join(dir, 'test'));
  writeFileSync(
    join(dir, 'test', 'sum.test.js'),
    `const test = require('node:test');\nconst assert = require('node:assert');\n${testBody}\n`,
  );
  return dir;
}

const base = (cwd: string, commands: string[]): RunGateOptions => ({
  commands,
  launch: launchUnconfined,
  cwd,
  timeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  signal: new AbortController().signal,
  killGraceMs: 200,
});

describe('runGate', () => {
  it('passes a project whose node --test suite passes', async () => {
    const dir = nodeProject(`test('adds', () => assert.strictEqual(1 + 1, 2));`);
    const gate = await runGate(base(dir, ['npm test']));
    assert.equal(gate.passed, true, gate.commands[0]?.output);
    assert.deepEqual([gate.stuck, gate.cancelled], [false, false]);
    assert.equal(gate.commands.length, 1);
    assert.equal(gate.commands[0]!.command, 'npm test');
    assert.equal(gate.commands[0]!.exitCode, 0);
    assert.equal(gate.commands[0]!.timedOut, false);
  });

  it('fails a project whose suite fails, with the failure in the output', async () => {
    const dir = nodeProject(`test('adds wrongly', () => assert.strictEqual(1 + 1, 3));`);
    const gate = await runGate(base(dir, ['npm test']));
    assert.equal(gate.passed, false);
    assert.notEqual(gate.commands[0]!.exitCode, 0);
    assert.match(gate.commands[0]!.output, /adds wrongly/);
  });

  it('passes with no commands', async () => {
    const gate = await runGate(base(tmpdir(), []));
    assert.deepEqual(gate, { passed: true, stuck: false, cancelled: false, commands: [] });
  });

  it('stops at the first failing command', async () => {
    const gate = await runGate(base(tmpdir(), ['echo one', 'echo two >&2; exit 3', 'echo three']));
    assert.equal(gate.passed, false);
    assert.deepEqual(
      gate.commands.map((c) => [c.command, c.exitCode, c.output]),
      [
        ['echo one', 0, 'one\n'],
        ['echo two >&2; exit 3', 3, 'two\n'],
      ],
    );
  });

  it('says clearly that a command does not exist', async () => {
    const gate = await runGate(base(tmpdir(), ['taskloom-missing-tool --check']));
    assert.equal(gate.passed, false);
    const [cmd] = gate.commands;
    assert.equal(cmd!.exitCode, 127);
    assert.match(cmd!.output, /taskloom-missing-tool.*not found/);
    assert.match(cmd!.output, /\[taskloom\] `taskloom-missing-tool --check` exited with 127: command not found/);
  });

  it('kills the command and its children on timeout', async () => {
    const gate = await runGate({ ...base(tmpdir(), ['sleep 100 & echo $!; sleep 100', 'echo never']), timeoutMs: 600 });
    assert.equal(gate.passed, false);
    assert.equal(gate.stuck, false);
    assert.equal(gate.commands.length, 1);
    const [cmd] = gate.commands;
    assert.equal(cmd!.timedOut, true);
    assert.equal(isProcessAlive(Number(cmd!.output.split('\n')[0])), false, 'the background child survived');
    assert.match(cmd!.output, /did not finish within the gate timeout/);
  });

  it('reports a silent command as stuck', async () => {
    const gate = await runGate({ ...base(tmpdir(), ['echo begin; sleep 100']), idleTimeoutMs: 300 });
    assert.equal(gate.stuck, true);
    assert.equal(gate.passed, false);
    assert.match(gate.commands[0]!.output, /^begin\n\[taskloom\] .*printed nothing for 0\.3s/);
  });

  it('reports cancellation', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const gate = await runGate({ ...base(tmpdir(), ['sleep 100']), signal: controller.signal });
    assert.deepEqual([gate.passed, gate.cancelled, gate.stuck], [false, true, false]);
  });

  it('redacts secrets from the output and the activity', async () => {
    const env = { ...process.env, DEPLOY_TOKEN: 'very-secret-value-42' };
    const seen: string[] = [];
    const gate = await runGate({
      ...base(tmpdir(), ['echo "token is $DEPLOY_TOKEN"; echo "gh ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"']),
      env,
      onActivity: (a) => seen.push(a.text),
    });
    assert.equal(gate.passed, true);
    assert.equal(gate.commands[0]!.output, 'token is [REDACTED]\ngh [REDACTED]\n');
    assert.ok(seen.length > 0);
    assert.ok(!seen.join('').includes('very-secret-value-42'));
  });

  it('caps each command output at 64 KiB, head and tail', async () => {
    const gate = await runGate(base(tmpdir(), [`node -e "process.stdout.write('h' + 'x'.repeat(200000) + 't')"`]));
    const { output } = gate.commands[0]!;
    assert.ok(Buffer.byteLength(output) < 64 * 1024 + 100, `output is ${Buffer.byteLength(output)} bytes`);
    assert.match(output, /^hx+\n… \d+ bytes omitted …\nx+t$/);
  });
});
