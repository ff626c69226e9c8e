import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CODEX_NOT_ON_PATH, CodexRunner } from '../../src/engine/agents/codex/codexRunner';
import { costOf } from '../../src/engine/agents/codex/codexPrices';
import type { RunnerActivity, RunnerInput } from '../../src/engine/agents/runner';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import { isProcessAlive } from '../../src/engine/process/liveness';
import {
  addFileCommand,
  codexProviderOverrides,
  codexTestEnv,
  execCommand,
  message,
  startOpenAIServer,
  type OpenAIServer,
  type Reply,
  type ReplyFn,
} from '../helpers/openaiServer';
import { makeCodexHome } from '../helpers/codexHome';
import { runnerInput } from '../helpers/runnerInput';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

// The REAL codex CLI (the @openai/codex dev dependency), with the scripted Responses API server
// on 127.0.0.1 as its model provider and a temp CODEX_HOME: no network, no real home touched.
const root = findPackageRoot(__dirname);
const CODEX = join(root, 'node_modules', '.bin', 'codex');
const TEST_TIMEOUT = 60_000;

interface Case {
  server: OpenAIServer;
  repo: TempRepo;
  codexHome: string;
  /** A marker in codex's environment, to find its processes in /proc. */
  mark: string;
  env: NodeJS.ProcessEnv;
  runner(options?: { binaryPath?: string; configOverrides?: string[]; env?: NodeJS.ProcessEnv }): CodexRunner;
  cleanup(): Promise<void>;
}

async function setup(replies: Array<Reply | ReplyFn>, files?: Record<string, string>): Promise<Case> {
  const server = await startOpenAIServer();
  server.script(replies);
  const repo = makeTempRepo({ files: files ?? { 'README.md': '# demo\n' } });
  const codexHome = makeCodexHome();
  const mark = randomUUID();
  const env = { ...process.env, ...codexTestEnv(codexHome), TASKLOOM_TEST_MARK: mark };
  return {
    server,
    repo,
    codexHome,
    mark,
    env,
    runner: (options = {}) =>
      new CodexRunner({
        binaryPath: options.binaryPath ?? CODEX,
        env: options.env ?? env,
        configOverrides: [...codexProviderOverrides(server), ...(options.configOverrides ?? [])],
        killGraceMs: 500,
      }),
    async cleanup() {
      await server.close();
      repo.cleanup();
      rmSync(codexHome, { recursive: true, force: true });
    },
  };
}

const input = (cwd: string, fields: Partial<RunnerInput> = {}): RunnerInput => runnerInput(cwd, { model: 'gpt-5-codex', ...fields });

/** Expected Taskloom usage of scripted requests, for a model. */
function expectedUsage(model: string, requests: Array<{ input: number; cached?: number; output: number }>) {
  const input = requests.reduce((n, r) => n + r.input, 0);
  const cached = requests.reduce((n, r) => n + (r.cached ?? 0), 0);
  const output = requests.reduce((n, r) => n + r.output, 0);
  const tokens = { inputTokens: input - cached, cacheReadTokens: cached, cacheWriteTokens: 0, outputTokens: output };
  return { ...tokens, costUsd: costOf(model, tokens) };
}

// ---- /proc: the processes of one codex call, descendants included (codex puts its tools in
// their own sessions, so the process group alone does not cover them).

interface Proc {
  pid: number;
  startedAt: string;
}

function procStat(pid: number): { ppid: number; startedAt: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), startedAt: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

function hasMark(pid: number, mark: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`TASKLOOM_TEST_MARK=${mark}`);
  } catch {
    return false;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** The processes carrying the mark and all their descendants, now. */
function markedTree(mark: string): Proc[] {
  const all = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .flatMap((pid) => {
      const stat = procStat(pid);
      return stat ? [{ pid, ...stat }] : [];
    });
  const inTree = new Set(all.filter((p) => hasMark(p.pid, mark)).map((p) => p.pid));
  for (let grown = true; grown; ) {
    grown = false;
    for (const p of all) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grown = true;
      }
    }
  }
  return all.filter((p) => inTree.has(p.pid)).map((p) => ({ pid: p.pid, startedAt: p.startedAt }));
}

/**
 * Samples the tree every 50 ms until stopped: every process seen, and every command line seen
 * (again at each sample: a forked child shows its parent's until it execs).
 */
function watchTree(mark: string): { sample(): Proc[]; commands: Set<string>; stop(): Map<number, Proc> } {
  const seen = new Map<number, Proc>();
  const commands = new Set<string>();
  const sample = () => {
    const now = markedTree(mark);
    for (const p of now) {
      seen.set(p.pid, p);
      commands.add(cmdline(p.pid));
    }
    return now;
  };
  const timer = setInterval(sample, 50);
  return {
    sample,
    commands,
    stop() {
      clearInterval(timer);
      sample();
      return seen;
    },
  };
}

/**
 * A `bwrap` first on codex's PATH that cannot make namespaces, as where unprivileged user namespaces
 * are turned off: its help names the options codex 0.171 requires of a system bwrap (else codex takes
 * its bundled one), and every other use fails, after noting its arguments in `calls`.
 */
function brokenBwrap(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; calls(): string; cleanup(): void } {
  // Neither in the worktree nor in /tmp: codex ignores a bwrap its sandbox could let commands write.
  mkdirSync(join(root, 'test-artifacts'), { recursive: true });
  const dir = mkdtempSync(join(root, 'test-artifacts', 'broken-bwrap-'));
  const log = join(dir, 'calls.log');
  const script = [
    '#!/bin/sh',
    'if [ "$1" = --help ]; then echo "    --as-pid-1"; echo "    --perms OCTAL"; exit 0; fi',
    `echo "$*" >> '${log}'`,
    'echo "bwrap: setting up uid map: Permission denied" >&2',
    'exit 1',
  ].join('\n');
  writeFileSync(join(dir, 'bwrap'), `${script}\n`, { mode: 0o755 });
  return {
    env: { ...env, PATH: `${dir}:${env.PATH ?? ''}` },
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function survivors(seen: Map<number, Proc>): string[] {
  return [...seen.values()]
    .filter((p) => isProcessAlive(p.pid) && procStat(p.pid)?.startedAt === p.startedAt)
    .map((p) => `${p.pid} ${cmdline(p.pid).slice(0, 120)}`);
}

describe('CodexRunner with the real codex CLI', { concurrency: 2, timeout: 120_000 }, () => {
  it('actor: edits files through apply_patch and the shell, with exact usage and cost', { timeout: TEST_TIMEOUT }, async () => {
    const prompt = 'Add src/greet.js and note it in the README. (prompt-marker-7f3a)';
    let argvSeen = '';
    const c = await setup([
      (req) => {
        // While codex waits for this answer, its command lines must not hold the prompt.
        argvSeen = markedTree(c.mark).map((p) => cmdline(p.pid)).join('\n');
        assert.ok(req.lastUserText.includes(prompt));
        return execCommand(addFileCommand('src/greet.js', 'export const greet = (n) => `hi ${n}`;\n'), {
          input: 1000,
          output: 50,
          reasoning: 20,
        });
      },
      execCommand(`printf '\\nSee src/greet.js.\\n' >> README.md`, { input: 1200, cached: 900, output: 30 }),
      message('Added greet.js and noted it in the README.', { input: 1400, cached: 1100, output: 20 }),
    ]);
    try {
      const activities: RunnerActivity[] = [];
      const result = await c.runner().run(input(c.repo.dir, { prompt }), (a) => activities.push(a));
      assert.equal(result.status, 'ok', result.error);
      assert.equal(result.text, 'Added greet.js and noted it in the README.');
      assert.equal(result.model, 'gpt-5-codex');
      assert.match(result.sessionId ?? '', /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        result.usage,
        expectedUsage('gpt-5-codex', [
          { input: 1000, output: 50 },
          { input: 1200, cached: 900, output: 30 },
          { input: 1400, cached: 1100, output: 20 },
        ]),
      );
      assert.equal(result.usage.costUsd, (1600 * 1.25 + 2000 * 0.125 + 100 * 10) / 1e6);
      assert.equal(result.structured, undefined);

      // The worktree really changed.
      assert.equal(readFileSync(join(c.repo.dir, 'src/greet.js'), 'utf8'), 'export const greet = (n) => `hi ${n}`;\n');
      assert.equal(readFileSync(join(c.repo.dir, 'README.md'), 'utf8'), '# demo\n\nSee src/greet.js.\n');
      assert.deepEqual(c.repo.git(['status', '--porcelain']).split('\n').sort(), [' M README.md', '?? src/'].sort());

      // What the model was told by codex: the tools' results.
      const requests = c.server.responseRequests();
      assert.equal(requests.length, 3);
      assert.match(requests[1]!.toolOutputs[0]!.output, /Success\. Updated the following files:\nA src\/greet\.js/);
      assert.equal(requests[0]!.body.model, 'gpt-5-codex');
      assert.equal(requests[0]!.headers.authorization, 'Bearer sk-test-dummy');
      assert.equal(c.server.unscripted.length, 0);

      // The prompt went through stdin, not argv.
      assert.ok(argvSeen.includes('exec --json'), argvSeen);
      assert.ok(!argvSeen.includes('prompt-marker-7f3a'), argvSeen);

      const log = activities.map((a) => `${a.kind}: ${a.message}`);
      assert.ok(log.some((m) => /^tool: edited: A .*src\/greet\.js$/.test(m)), log.join('\n'));
      assert.ok(log.some((m) => m.startsWith('tool: $ ') && m.includes('README.md') && m.endsWith('exit 0')), log.join('\n'));
      assert.ok(log.includes('text: Added greet.js and noted it in the README.'), log.join('\n'));
    } finally {
      await c.cleanup();
    }
  });

  it('actor: writes its worktree and its own TMPDIR, not the rest of /tmp', { timeout: TEST_TIMEOUT }, async () => {
    const outside = mkdtempSync(join(tmpdir(), 'taskloom-outside-'));
    const c = await setup([
      execCommand(`touch ${join(outside, 'escaped.txt')}`, { input: 100, output: 5 }),
      execCommand('echo scratch > "$TMPDIR/scratch.txt" && cat "$TMPDIR/scratch.txt" && touch inside.txt', { input: 100, output: 5 }),
      message('Done.', { input: 100, output: 5 }),
    ]);
    try {
      const result = await c.runner().run(input(c.repo.dir));
      assert.equal(result.status, 'ok', result.error);
      const outputs = c.server.responseRequests().map((r) => r.toolOutputs.at(-1)?.output ?? '');
      assert.match(outputs[1]!, /Permission denied|Read-only file system|Operation not permitted/, outputs[1]);
      assert.deepEqual(readdirSync(outside), [], 'nothing written outside the worktree');
      assert.match(outputs[2]!, /scratch/, outputs[2]);
      assert.ok(existsSync(join(c.repo.dir, 'inside.txt')));
    } finally {
      await c.cleanup();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('confined (in Taskloom\'s sandbox): no sandbox of its own, even where codex\'s cannot start; the marker and the task\'s variables reach the tools', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([
      execCommand('printf \'written\\n\' > confined.txt && echo "port=$TASKLOOM_PORT call=$TASKLOOM_AGENT_CALL"', { input: 100, output: 5 }),
      message('Wrote confined.txt.', { input: 100, output: 5 }),
    ]);
    const bwrap = brokenBwrap(c.env);
    try {
      // The user's overrides cannot turn codex's sandbox back on.
      const runner = c.runner({ env: bwrap.env, configOverrides: ['sandbox_mode="read-only"'] });
      const activities: RunnerActivity[] = [];
      const result = await runner.run(input(c.repo.dir, { confined: true, env: { TASKLOOM_PORT: '4711' } }), (a) => activities.push(a));
      assert.equal(result.status, 'ok', result.error);
      assert.equal(readFileSync(join(c.repo.dir, 'confined.txt'), 'utf8'), 'written\n', 'the shell tool wrote the worktree');
      assert.equal(bwrap.calls(), '', 'codex did not try a sandbox of its own');
      const toolOutput = c.server.responseRequests()[1]!.toolOutputs[0]!.output;
      assert.match(toolOutput, /port=4711 call=\S+/, toolOutput);
      const log = activities.map((a) => `${a.kind}: ${a.message}`);
      assert.ok(log.includes("status: codex exec (in Taskloom's sandbox)"), log.join('\n'));
    } finally {
      bwrap.cleanup();
      await c.cleanup();
    }
  });

  it('unconfined, where codex\'s own sandbox cannot start: the call fails saying so and what to do, before the model is asked', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([execCommand('touch never.txt', { input: 100, output: 5 }), message('Done.', { input: 100, output: 5 })]);
    const bwrap = brokenBwrap(c.env);
    try {
      const result = await c.runner({ env: bwrap.env }).run(input(c.repo.dir));
      assert.equal(result.status, 'spawn_failed', result.error);
      assert.equal(result.cause, 'exited');
      assert.match(result.error ?? '', /^codex's own sandbox \(workspace-write\) cannot run commands here: `codex sandbox -- true` exited with code 1/);
      assert.match(result.error ?? '', /Taskloom's sandbox/);
      assert.match(result.lastOutput ?? '', /bwrap: setting up uid map: Permission denied/, 'codex\'s own words say why');
      assert.notEqual(bwrap.calls(), '', 'codex tried its sandbox');
      assert.equal(c.server.requests.length, 0, 'no model request: no attempt that would fail command by command');
      assert.equal(existsSync(join(c.repo.dir, 'never.txt')), false);
    } finally {
      bwrap.cleanup();
      await c.cleanup();
    }
  });

  it('critic: read-only sandbox, output schema, JSON verdict', { timeout: TEST_TIMEOUT }, async () => {
    const schema = {
      type: 'object',
      properties: { verdict: { type: 'string', enum: ['approve', 'request_changes'] }, summary: { type: 'string' } },
      required: ['verdict', 'summary'],
      additionalProperties: false,
    };
    const verdict = { verdict: 'request_changes', summary: 'Missing a test for greet.' };
    const c = await setup([
      execCommand('echo tampered > critic-wrote.txt', { input: 800, output: 10 }),
      message(JSON.stringify(verdict), { input: 900, cached: 700, output: 25 }),
    ]);
    try {
      const result = await c.runner().run(
        input(c.repo.dir, { role: 'critic', access: 'read-only', model: 'gpt-5', outputSchema: schema, prompt: 'Review the diff.' }),
      );
      assert.equal(result.status, 'ok', result.error);
      assert.deepEqual(result.structured, verdict);
      assert.equal(result.text, JSON.stringify(verdict));
      assert.deepEqual(result.usage, expectedUsage('gpt-5', [{ input: 800, output: 10 }, { input: 900, cached: 700, output: 25 }]));

      const requests = c.server.responseRequests();
      assert.deepEqual(requests[0]!.body.text?.format?.schema, schema, 'codex sends the output schema to the model');
      assert.match(requests[1]!.toolOutputs[0]!.output, /Read-only file system/);
      assert.equal(existsSync(join(c.repo.dir, 'critic-wrote.txt')), false);
      assert.equal(c.repo.git(['status', '--porcelain']), '');
    } finally {
      await c.cleanup();
    }
  });

  it('resume: continues the thread; each call reports only its own usage (in memory, then from codex’s record)', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([
      message('First answer.', { input: 1000, output: 10 }),
      message('Second answer.', { input: 1500, cached: 1000, output: 20 }),
      execCommand('echo x > resumed-critic-wrote.txt', { input: 1700, cached: 1500, output: 5 }),
      message('Third answer.', { input: 1900, cached: 1700, output: 7 }),
    ]);
    try {
      const runner = c.runner();
      const first = await runner.run(input(c.repo.dir, { prompt: 'First question (alpha).' }));
      assert.equal(first.status, 'ok', first.error);
      assert.deepEqual(first.usage, expectedUsage('gpt-5-codex', [{ input: 1000, output: 10 }]));

      const second = await runner.run(input(c.repo.dir, { prompt: 'Second question.', resumeSessionId: first.sessionId }));
      assert.equal(second.status, 'ok', second.error);
      assert.equal(second.sessionId, first.sessionId);
      assert.equal(second.text, 'Second answer.');
      assert.deepEqual(second.usage, expectedUsage('gpt-5-codex', [{ input: 1500, cached: 1000, output: 20 }]));

      // A fresh runner (as after a restart) learns the thread's count from codex's session record;
      // and a resumed critic is read-only too.
      const third = await c.runner().run(
        input(c.repo.dir, { role: 'critic', access: 'read-only', prompt: 'Third question.', resumeSessionId: first.sessionId }),
      );
      assert.equal(third.status, 'ok', third.error);
      assert.equal(third.sessionId, first.sessionId);
      assert.deepEqual(
        third.usage,
        expectedUsage('gpt-5-codex', [
          { input: 1700, cached: 1500, output: 5 },
          { input: 1900, cached: 1700, output: 7 },
        ]),
      );
      assert.equal(existsSync(join(c.repo.dir, 'resumed-critic-wrote.txt')), false);

      const requests = c.server.responseRequests();
      assert.equal(requests.length, 4);
      const history = JSON.stringify(requests[1]!.body.input);
      assert.ok(history.includes('First question (alpha).') && history.includes('First answer.'), 'the second call sees the first');
      assert.equal(requests[1]!.lastUserText.trim(), 'Second question.');
      assert.match(requests[3]!.toolOutputs.at(-1)!.output, /Read-only file system/);
    } finally {
      await c.cleanup();
    }
  });

  it('429 after some work → quota, with the tokens already spent', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([
      execCommand('true', { input: 800, output: 12 }),
      { kind: 'http_error', status: 429, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } },
    ]);
    try {
      const result = await c.runner().run(input(c.repo.dir));
      assert.equal(result.status, 'quota', result.error);
      assert.match(result.error ?? '', /429/);
      assert.match(result.sessionId ?? '', /^[0-9a-f-]{36}$/);
      // No turn completed on stdout: the spent tokens come from codex's session record.
      assert.deepEqual(result.usage, expectedUsage('gpt-5-codex', [{ input: 800, output: 12 }]));
    } finally {
      await c.cleanup();
    }
  });

  it('a failed response (turn.failed) → agent_error; 401 → auth; a dropped connection → agent_error', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([
      { kind: 'failed', code: 'server_error', message: 'the model broke' },
      { kind: 'http_error', status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } },
      { kind: 'drop' },
    ]);
    try {
      // No model asked for: codex picks its default, which the runner reads from codex's record.
      const failed = await c.runner().run(input(c.repo.dir, { model: undefined }));
      assert.equal(failed.status, 'agent_error', failed.error);
      assert.match(failed.error ?? '', /the model broke/);
      assert.equal(failed.usage.costUsd, 0);
      const defaultModel = c.server.responseRequests()[0]!.body.model;
      assert.ok(typeof defaultModel === 'string' && defaultModel !== '');
      assert.equal(failed.model, defaultModel);
      const denied = await c.runner().run(input(c.repo.dir));
      assert.equal(denied.status, 'auth', denied.error);
      assert.match(denied.error ?? '', /401/);
      const dropped = await c.runner().run(input(c.repo.dir));
      assert.equal(dropped.status, 'agent_error', dropped.error);
      assert.match(dropped.error ?? '', /stream disconnected/);
    } finally {
      await c.cleanup();
    }
  });

  it('cancel mid-call → cancelled, and no process of the call is left', { timeout: TEST_TIMEOUT }, async () => {
    const controller = new AbortController();
    let watch: ReturnType<typeof watchTree> | undefined;
    const c = await setup([
      // A long shell command left running in the background, then a model that never answers.
      execCommand('sleep 60 & sleep 61; echo never', { input: 100, output: 5 }, { yield_time_ms: 500 }),
      () => {
        // Abort once the tool's sleep really runs (a login shell can take seconds to start).
        const deadline = Date.now() + 20_000;
        const poll = setInterval(() => {
          const running = watch!.sample().some((p) => cmdline(p.pid).startsWith('sleep 60'));
          if (running || Date.now() > deadline) {
            clearInterval(poll);
            controller.abort();
          }
        }, 50);
        return { kind: 'hang' };
      },
    ]);
    try {
      watch = watchTree(c.mark);
      // Even when the tools inherit nothing of codex's environment, the runner's marker reaches them.
      const runner = c.runner({ configOverrides: ['shell_environment_policy.inherit="none"'] });
      const result = await runner.run(input(c.repo.dir, { signal: controller.signal }));
      const seen = watch.stop();
      assert.equal(result.status, 'cancelled', result.error);
      assert.equal(c.server.responseRequests().length, 2, 'the abort came while codex waited for the model');
      const commands = [...watch.commands];
      assert.ok(commands.some((cmd) => cmd.startsWith('sleep 60')), `the tool's process was seen:\n${commands.join('\n')}`);
      assert.deepEqual(survivors(seen), []);
    } finally {
      await c.cleanup();
    }
  });

  it('a model that never answers → idle_timeout, and no process is left', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([{ kind: 'hang' }]);
    try {
      const watch = watchTree(c.mark);
      const result = await c.runner().run(input(c.repo.dir, { idleTimeoutMs: 4000 }));
      const seen = watch.stop();
      assert.equal(result.status, 'idle_timeout', result.error);
      assert.match(result.error ?? '', /no activity for 4000 ms/);
      assert.ok(seen.size >= 1);
      assert.deepEqual(survivors(seen), []);
    } finally {
      await c.cleanup();
    }
  });

  it('codex failing before any turn (bad configuration) → crashed, with its message', { timeout: TEST_TIMEOUT }, async () => {
    const c = await setup([]);
    try {
      const runner = new CodexRunner({ binaryPath: CODEX, env: c.env, configOverrides: ['model_provider="taskloom_no_such_provider"'] });
      const result = await runner.run(input(c.repo.dir));
      assert.equal(result.status, 'crashed', result.error);
      assert.match(result.error ?? '', /exited with code 1 without completing a turn/);
      assert.equal(result.cause, 'exited');
      assert.match(result.lastOutput ?? '', /Model provider `taskloom_no_such_provider` not found/);
      assert.equal(c.server.requests.length, 0);
    } finally {
      await c.cleanup();
    }
  });

  it('codex missing → spawn_failed with how to install it', { timeout: TEST_TIMEOUT }, async () => {
    const emptyBin = mkdtempSync(join(tmpdir(), 'taskloom-nobin-'));
    const repo = makeTempRepo();
    try {
      const runner = new CodexRunner({ env: { ...process.env, PATH: emptyBin } });
      const result = await runner.run(input(repo.dir));
      assert.equal(result.status, 'spawn_failed');
      assert.equal(result.error, CODEX_NOT_ON_PATH);
      assert.equal(result.cause, 'not_installed');
      const custom = await new CodexRunner({ binaryPath: join(emptyBin, 'codex') }).run(input(repo.dir));
      assert.equal(custom.status, 'spawn_failed');
      assert.match(custom.error ?? '', /taskloom-nobin-.*codex` was not found/);
    } finally {
      repo.cleanup();
      rmSync(emptyBin, { recursive: true, force: true });
    }
  });
});
