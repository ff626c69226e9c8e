import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLAUDE_NOT_ON_PATH } from '../../src/engine/agents/claude/claudeArgs';
import { ClaudeRunner, type ClaudeRunnerOptions } from '../../src/engine/agents/claude/claudeRunner';
import type { RunnerActivity, RunnerInput } from '../../src/engine/agents/runner';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import { findMarkedProcesses, stopMarkedProcesses } from '../../src/engine/process/markedProcesses';
import {
  endsWithToolResult,
  lastUserText,
  startAnthropicServer,
  textOf,
  type AnthropicServer,
  type ApiUsage,
  type RecordedRequest,
} from '../helpers/anthropicServer';
import { claudeTestEnv, leftovers } from '../helpers/claudeEnv';
import { runnerInput } from '../helpers/runnerInput';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

// The REAL Claude Code CLI (the dev dependency) against a scripted Messages API on loopback.
// One server for the file; each test routes its conversations by a marker in its prompt, so
// the tests can run side by side (most of their time is the CLI starting up).
const CLAUDE = join(findPackageRoot(__dirname), 'node_modules', '.bin', 'claude');
const CALL_TIMEOUT = { timeout: 60_000 };
/** A real long-running process (Claude Code refuses a bare `sleep`). */
const LONG_COMMAND = 'node -e "setTimeout(() => {}, 45000)"';

let server: AnthropicServer;
let home: string;
const repos: TempRepo[] = [];

before(async () => {
  server = await startAnthropicServer();
  home = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-claude-home-')));
});
after(async () => {
  const unknownPaths = [...(server?.unknownPaths ?? [])];
  await server?.close();
  for (const repo of repos) repo.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
  // Whatever the CLI asked besides the conversation was answered, and nothing unexpected came.
  assert.deepEqual(unknownPaths, []);
});

function testEnv(marker: string): NodeJS.ProcessEnv {
  return { ...process.env, ...claudeTestEnv({ home, baseUrl: server.url, marker }) };
}

function runner(marker: string, options: ClaudeRunnerOptions = {}): ClaudeRunner {
  return new ClaudeRunner({ binaryPath: CLAUDE, env: testEnv(marker), killGraceMs: 500, maxRetries: 1, ...options });
}

function repo(): string {
  const r = makeTempRepo({ files: { 'README.md': '# sample\n', 'src/sum.js': 'export const sum = (a, b) => a + b;\n' } });
  repos.push(r);
  return r.dir;
}

const input = (cwd: string, prompt: string, fields: Partial<RunnerInput> = {}): RunnerInput => runnerInput(cwd, { prompt, ...fields });

/** Whether the long command of the test case runs (not just a shell on its way to it). */
function commandRunning(marker: string): boolean {
  return leftovers(marker).some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('setTimeout(() => {}, 45000)');
    } catch {
      return false;
    }
  });
}

const sumTokens = (u: ApiUsage) => ({
  inputTokens: u.input_tokens,
  outputTokens: u.output_tokens,
  cacheReadTokens: u.cache_read_input_tokens,
  cacheWriteTokens: u.cache_creation_input_tokens,
});

const sessionHeader = (r: RecordedRequest) => r.headers['x-claude-code-session-id'];

describe('ClaudeRunner with the real claude CLI', { concurrency: 3 }, () => {
  it('actor: really writes a file through the Write tool and reports exact usage', CALL_TIMEOUT, async () => {
    const marker = '[case-actor]';
    const cwd = repo();
    const target = join(cwd, 'src', 'hello.js');
    const scenario = server.scenario(marker, (request) =>
      endsWithToolResult(request)
        ? { type: 'text', text: 'Added src/hello.js.', usage: { input_tokens: 1500, output_tokens: 25, cache_read_input_tokens: 1300, cache_creation_input_tokens: 60 } }
        : {
            type: 'tool_use',
            name: 'Write',
            text: 'Writing the file.',
            input: { file_path: target, content: 'export const hello = () => "hi";\n' },
            usage: { input_tokens: 1200, output_tokens: 70, cache_read_input_tokens: 0, cache_creation_input_tokens: 1100 },
          },
    );
    const activity: RunnerActivity[] = [];
    const result = await runner(marker).run(input(cwd, `${marker} Add src/hello.js exporting hello().`, { model: 'claude-scripted-1' }), (a) =>
      activity.push(a),
    );

    assert.equal(result.status, 'ok', result.error);
    assert.equal(readFileSync(target, 'utf8'), 'export const hello = () => "hi";\n');
    assert.equal(result.text, 'Added src/hello.js.');
    assert.equal(result.structured, undefined);
    assert.equal(result.model, 'claude-scripted-1');
    assert.match(result.sessionId ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    // What the server reported, to the token; a cost that Claude Code computed from it.
    assert.equal(scenario.requests.length, 2);
    assert.deepEqual({ ...result.usage, costUsd: 0 }, { ...sumTokens(scenario.usageSince(0)), costUsd: 0 });
    assert.ok(result.usage.costUsd > 0);

    // The prompt went through stdin and reached the model; our session id and model were used.
    const first = scenario.requests[0]!.request!;
    assert.match(lastUserText(first), /Add src\/hello\.js exporting hello\(\)\./);
    assert.equal(first.model, 'claude-scripted-1');
    assert.equal(sessionHeader(scenario.requests[0]!), result.sessionId);
    assert.match(first.system, /actor of a Taskloom task/);
    for (const tool of ['Read', 'Edit', 'Write', 'Bash']) assert.ok(first.tools.includes(tool), `${tool} offered`);

    assert.ok(activity.some((a) => a.kind === 'tool' && a.message === `Write ${target}`));
    assert.ok(activity.some((a) => a.kind === 'text' && a.message === 'Writing the file.'));
  });

  it('actor: writes only inside its worktree and runs only the allowed commands, whatever the repository says', CALL_TIMEOUT, async () => {
    const marker = '[case-confined]';
    // The repository's own Claude settings try to allow everything and add a hook: they are ignored.
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-outside-')));
    const hookRan = join(outside, 'hook-ran');
    const r = makeTempRepo({
      files: {
        'README.md': '# sample\n',
        '.claude/settings.json': JSON.stringify({
          permissions: { allow: ['Bash', 'Write', 'Edit'] },
          hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `touch ${hookRan}` }] }] },
        }),
      },
    });
    repos.push(r);
    const attempts = [
      { name: 'Write', input: { file_path: join(outside, 'written.txt'), content: 'x' } },
      { name: 'Bash', input: { command: `touch ${join(outside, 'touched.txt')}` } },
      { name: 'Bash', input: { command: `npm --version && touch ${join(outside, 'chained.txt')}` } },
      { name: 'Bash', input: { command: `node -e "require('fs').writeFileSync('${join(outside, 'node.txt')}', 'x')"` } },
      { name: 'Bash', input: { command: 'npm --version' } },
      { name: 'Write', input: { file_path: join(r.dir, 'inside.txt'), content: 'inside\n' } },
    ];
    const scenario = server.scenario(marker, (_request, index) =>
      index < attempts.length ? { type: 'tool_use', ...attempts[index]! } : { type: 'text', text: 'Done.' },
    );
    const result = await runner(marker).run(input(r.dir, `${marker} try everything`, { allowedCommands: ['npm --version'] }));

    assert.equal(result.status, 'ok', result.error);
    assert.deepEqual(readdirSync(outside), [], 'nothing was written outside the worktree, and no hook ran');
    assert.equal(readFileSync(join(r.dir, 'inside.txt'), 'utf8'), 'inside\n');
    // The last request carries the whole conversation: one tool result per attempt, in order.
    const conversation = scenario.requests.at(-1)!.request!.messages;
    const toolResults = conversation
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; is_error?: boolean; content?: unknown }>) : []))
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({ refused: b.is_error === true, text: JSON.stringify(b.content) }));
    assert.deepEqual(
      toolResults.map((t) => t.refused),
      [true, true, true, true, false, false],
      JSON.stringify(toolResults, null, 1),
    );
    assert.match(toolResults[0]!.text, /outside .* confines the file tools to the working directory/);
    assert.match(toolResults[4]!.text, /\d+\.\d+\.\d+/, 'the allowed command ran');
    rmSync(outside, { recursive: true, force: true });
  });

  it('critic: returns a structured verdict and cannot write', CALL_TIMEOUT, async () => {
    const marker = '[case-critic]';
    const cwd = repo();
    const forbidden = join(cwd, 'critic-was-here.txt');
    const verdict = { decision: 'changes_required', summary: 'sum() lacks a test.' };
    const scenario = server.scenario(marker, (_request, index) =>
      index === 0
        ? { type: 'tool_use', name: 'Write', input: { file_path: forbidden, content: 'x' } }
        : { type: 'tool_use', name: 'StructuredOutput', input: verdict },
    );
    const schema = {
      type: 'object',
      properties: { decision: { type: 'string', enum: ['approve', 'changes_required'] }, summary: { type: 'string' } },
      required: ['decision', 'summary'],
    };
    const result = await runner(marker).run(
      input(cwd, `${marker} Review the diff.`, { role: 'critic', access: 'read-only', outputSchema: schema }),
    );

    assert.equal(result.status, 'ok', result.error);
    assert.deepEqual(result.structured, verdict);
    assert.deepEqual(JSON.parse(result.text), verdict);
    assert.equal(existsSync(forbidden), false);

    // Offered: reading tools and the schema's tool only. The Write attempt came back refused.
    const first = scenario.requests[0]!.request!;
    assert.deepEqual(first.tools.filter((t) => t !== 'DeferredToolPlaceholder').sort(), ['Glob', 'Grep', 'Read', 'StructuredOutput']);
    assert.match(first.system, /critic of a Taskloom task/);
    const refusal = scenario.requests[1]!.request!.messages.at(-1)!.content as Array<{ type: string; is_error?: boolean; content?: unknown }>;
    const toolResult = refusal.find((b) => b.type === 'tool_result');
    assert.equal(toolResult?.is_error, true);
    assert.match(JSON.stringify(toolResult?.content), /No such tool available: Write/);
  });

  it("resume: continues the conversation with --resume and reports only this call's usage", CALL_TIMEOUT, async () => {
    const marker = '[case-resume]';
    const cwd = repo();
    const perRequest = { input_tokens: 2000, output_tokens: 111, cache_read_input_tokens: 333, cache_creation_input_tokens: 44 };
    const scenario = server.scenario(marker, (request) => {
      const prompt = lastUserText(request);
      if (prompt.includes('first question')) return { type: 'text', text: 'First answer: 42.', usage: perRequest };
      // The resumed call makes two requests (a Read, then the answer): twice the usage above.
      return endsWithToolResult(request)
        ? { type: 'text', text: 'Second answer: still 42.', usage: perRequest }
        : { type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'README.md') }, usage: perRequest };
    });
    const claude = runner(marker);
    const first = await claude.run(input(cwd, `${marker} first question`, { role: 'critic', access: 'read-only' }));
    assert.equal(first.status, 'ok', first.error);
    assert.equal(scenario.requests.length, 1);

    const second = await claude.run(
      input(cwd, `${marker} second question`, { role: 'critic', access: 'read-only', resumeSessionId: first.sessionId }),
    );
    assert.equal(second.status, 'ok', second.error);
    assert.equal(second.text, 'Second answer: still 42.');
    assert.equal(second.sessionId, first.sessionId);
    assert.equal(scenario.requests.length, 3);

    // The server saw the earlier turns in the resumed conversation, under the same session.
    const resumed = scenario.requests[1]!;
    assert.equal(sessionHeader(resumed), first.sessionId);
    const transcript = resumed.request!.messages.map((m) => textOf(m.content)).join('\n');
    assert.match(transcript, /first question/);
    assert.match(transcript, /First answer: 42\./);
    assert.match(lastUserText(resumed.request!), /second question/);

    // Deltas: exactly the two requests of this call (the session's total would be three).
    assert.deepEqual({ ...second.usage, costUsd: 0 }, { ...sumTokens(scenario.usageSince(1)), costUsd: 0 });
    assert.deepEqual({ ...first.usage, costUsd: 0 }, { ...sumTokens(perRequest), costUsd: 0 });
    assert.ok(first.usage.costUsd > 0);
    assert.ok(Math.abs(second.usage.costUsd - 2 * first.usage.costUsd) < 1e-8, `${second.usage.costUsd} vs 2 × ${first.usage.costUsd}`);
  });

  it('quota: HTTP 429 from the API ends the call as quota', CALL_TIMEOUT, async () => {
    const marker = '[case-429]';
    const scenario = server.scenario(marker, () => ({ type: 'http_error', status: 429, message: 'Number of request tokens has exceeded your per-minute rate limit' }));
    const activity: RunnerActivity[] = [];
    const result = await runner(marker).run(input(repo(), `${marker} do it`), (a) => activity.push(a));
    assert.equal(result.status, 'quota', result.error);
    assert.match(result.error ?? '', /429/);
    assert.equal(scenario.requests.length, 2); // maxRetries: 1
    assert.ok(activity.some((a) => /API error HTTP 429/.test(a.message)));
    assert.deepEqual(result.usage, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
  });

  it('auth: HTTP 401 ends the call as auth', CALL_TIMEOUT, async () => {
    const marker = '[case-401]';
    server.scenario(marker, () => ({ type: 'http_error', status: 401, message: 'invalid x-api-key' }));
    const result = await runner(marker).run(input(repo(), `${marker} do it`));
    assert.equal(result.status, 'auth', result.error);
    assert.match(result.error ?? '', /API key/i);
  });

  it('max turns: a call that keeps using tools ends as max_turns', CALL_TIMEOUT, async () => {
    const marker = '[case-turns]';
    const cwd = repo();
    server.scenario(marker, () => ({ type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'README.md') } }));
    const result = await runner(marker, { maxTurns: 1 }).run(input(cwd, `${marker} loop`));
    assert.equal(result.status, 'max_turns', result.error);
    assert.match(result.error ?? '', /maximum number of turns/);
  });

  it('idle: a model stream that never finishes is stopped by the watchdog, nothing left running', CALL_TIMEOUT, async () => {
    const marker = '[case-hang]';
    const scenario = server.scenario(marker, () => ({ type: 'hang' }));
    // Long enough for claude to start and send its request on a loaded machine.
    const result = await runner(marker).run(input(repo(), `${marker} do it`, { idleTimeoutMs: 10_000 }));
    assert.equal(result.status, 'idle_timeout', result.error);
    assert.match(result.error ?? '', /no activity for 10000 ms; claude was stopped/);
    assert.equal(scenario.requests.length, 1);
    assert.deepEqual(leftovers(marker), []);
  });

  it('dropped connection: the call fails instead of hanging', CALL_TIMEOUT, async () => {
    const marker = '[case-drop]';
    const scenario = server.scenario(marker, () => ({ type: 'drop' }));
    const result = await runner(marker).run(input(repo(), `${marker} do it`));
    assert.equal(result.status, 'agent_error', result.error);
    assert.match(result.error ?? '', /connection/i);
    assert.ok(scenario.requests.length >= 2);
    assert.deepEqual(leftovers(marker), []);
  });

  it('cancel: aborting mid-call stops claude and the command it runs', CALL_TIMEOUT, async () => {
    const marker = '[case-cancel]';
    const cwd = repo();
    const scenario = server.scenario(marker, (request) =>
      endsWithToolResult(request)
        ? { type: 'text', text: 'should never get here' }
        : { type: 'tool_use', name: 'Bash', input: { command: LONG_COMMAND, description: 'wait' } },
    );
    const controller = new AbortController();
    let sawBash = false;
    const running = runner(marker).run(input(cwd, `${marker} run it`, { signal: controller.signal, allowedCommands: ['node'] }), (a) => {
      if (a.kind === 'tool' && a.message === `Bash: ${LONG_COMMAND}`) sawBash = true;
    });
    try {
      // Abort once the command really runs (in its own session, as Claude Code starts it).
      const deadline = Date.now() + 30_000;
      while (!(sawBash && commandRunning(marker)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(sawBash, 'the Bash tool started');
      assert.ok(commandRunning(marker), 'the command runs');
    } finally {
      controller.abort();
    }
    const result = await running;
    assert.equal(result.status, 'cancelled', result.error);
    // Stopped with its command: claude never came back with the command's end (a second request).
    assert.equal(scenario.requests.length, 1);
    assert.deepEqual(leftovers(marker), []);
  });

  it('background command: the result line ends the call; claude and the command are stopped', CALL_TIMEOUT, async () => {
    const marker = '[case-background]';
    const cwd = repo();
    const scenario = server.scenario(marker, (request) =>
      endsWithToolResult(request)
        ? { type: 'text', text: 'Started the watcher.' }
        : { type: 'tool_use', name: 'Bash', input: { command: LONG_COMMAND, description: 'watch', run_in_background: true } },
    );
    // Left alone, claude -p would wait for the command (45 s) and then start a turn by itself (a third request).
    const result = await runner(marker).run(input(cwd, `${marker} start a watcher`, { allowedCommands: ['node'] }));
    assert.equal(result.status, 'ok', result.error);
    assert.equal(result.text, 'Started the watcher.');
    assert.equal(scenario.requests.length, 2);
    assert.deepEqual(leftovers(marker), []);
  });

  it('a Claude Code too old for the permission profiles: spawn_failed with what to do', CALL_TIMEOUT, async () => {
    // What an older claude (commander) answers to a flag it does not know.
    const old = join(home, 'old-claude');
    writeFileSync(old, "#!/bin/sh\necho \"error: unknown option '--restricted'\" >&2\nexit 1\n", { mode: 0o755 });
    const result = await new ClaudeRunner({ binaryPath: old, env: testEnv('[case-old]') }).run(input(repo(), 'hello'));
    assert.equal(result.status, 'spawn_failed');
    assert.match(result.error ?? '', /does not know --restricted, which Taskloom's permission profiles need — update it/);
  });

  it('missing binary: spawn_failed with what to do', CALL_TIMEOUT, async () => {
    const cwd = repo();
    const onPath = new ClaudeRunner({ env: { ...testEnv('[case-missing]'), PATH: join(home, 'empty-bin') } });
    const missing = await onPath.run(input(cwd, 'hello'));
    assert.equal(missing.status, 'spawn_failed');
    assert.equal(missing.error, CLAUDE_NOT_ON_PATH);

    const configured = new ClaudeRunner({ binaryPath: join(home, 'no', 'claude'), env: testEnv('[case-missing]') });
    const wrongPath = await configured.run(input(cwd, 'hello'));
    assert.equal(wrongPath.status, 'spawn_failed');
    assert.match(wrongPath.error ?? '', /no\/claude` \(taskloom\.claude\.path\) was not found/);
    assert.equal(wrongPath.cause, 'not_installed');
  });
});

describe('stray processes of a claude call', () => {
  it('finds and stops processes that left the group (setsid) by the marker they inherited', { timeout: 20_000 }, async () => {
    // What Claude Code does with a Bash tool command: a new session, out of reach of the group kill.
    const marker = `stray-${process.pid}-${Date.now()}`;
    const script = 'process.on("SIGTERM", () => {}); console.log("ready"); setTimeout(() => {}, 30000)';
    const child = spawn('setsid', [process.execPath, '-e', script], {
      env: { ...process.env, TASKLOOM_AGENT_CALL: marker, TASKLOOM_TEST_CASE: marker },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('error', reject);
    });
    child.stdout!.destroy();
    child.unref();
    assert.equal(leftovers(marker).length, 1);
    assert.deepEqual(findMarkedProcesses(marker).map((p) => p.pid), leftovers(marker));
    assert.deepEqual(findMarkedProcesses(`${marker}-other`), []);
    // It ignores SIGTERM: the sweep must go on to SIGKILL.
    const started = Date.now();
    assert.equal(await stopMarkedProcesses(marker, 300), 1);
    assert.ok(Date.now() - started >= 300, 'it survived SIGTERM for the grace period');
    assert.deepEqual(leftovers(marker), []);
  });
});
