import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import { ScriptedRunner } from '../../src/engine/agents/scripted/scriptedRunner';
import type { RunnerActivity, RunnerInput } from '../../src/engine/agents/runner';
import { isProcessAlive } from '../../src/engine/process/liveness';
import { runnerInput } from '../helpers/runnerInput';
import { scratchFolder } from '../helpers/fileScoped';

// The agent is bundled fresh from the sources under test (as esbuild.mjs does for dist/), so
// these tests never run a stale dist/scripted-agent.js.
const root = findPackageRoot(__dirname);
const { dir: tmp } = scratchFolder('scripted');
const agentEntry = join(tmp, 'scripted-agent.js');
before(async () => {
  await build({
    entryPoints: [join(root, 'src/engine/agents/scripted/scriptedAgentMain.ts')],
    outfile: agentEntry,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  });
});

let counter = 0;
function setup(scenario: unknown): { cwd: string; runner: ScriptedRunner; scenarioPath: string } {
  const dir = join(tmp, `case-${++counter}`);
  const cwd = join(dir, 'work');
  mkdirSync(cwd, { recursive: true });
  const scenarioPath = join(dir, 'scenario.json');
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  return { cwd, scenarioPath, runner: new ScriptedRunner({ scenarioPath, agentEntry, killGraceMs: 300 }) };
}

const input = (cwd: string, fields: Partial<RunnerInput> = {}): RunnerInput => runnerInput(cwd, { idleTimeoutMs: 10_000, ...fields });

const FAST = { delayMs: 0 };

// Concurrent: each case has its own folders, and most of the time is node starting up.
describe('ScriptedRunner', { concurrency: 4 }, () => {
  it('writes, patches and deletes files in the working directory', async () => {
    const { cwd, runner } = setup({
      defaults: FAST,
      tasks: {
        t1: {
          actor: [
            {
              write: { 'src/new.js': 'export const x = 1;\n' },
              patch: [{ path: 'src/old.js', find: 'return 1;', replace: 'return $& 2;' }],
              delete: ['src/gone.js'],
              text: 'Done.',
            },
          ],
        },
      },
    });
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'src/old.js'), 'function f() { return 1; }\n');
    writeFileSync(join(cwd, 'src/gone.js'), 'x');
    const activity: RunnerActivity[] = [];
    const result = await runner.run(input(cwd), (a) => activity.push(a));

    assert.equal(result.status, 'ok', result.error);
    assert.equal(result.text, 'Done.');
    assert.equal(result.sessionId, 'scripted-t1-actor');
    assert.equal(result.model, 'scripted');
    assert.equal(readFileSync(join(cwd, 'src/new.js'), 'utf8'), 'export const x = 1;\n');
    assert.equal(readFileSync(join(cwd, 'src/old.js'), 'utf8'), 'function f() { return $& 2; }\n');
    assert.equal(existsSync(join(cwd, 'src/gone.js')), false);
    assert.deepEqual(
      activity.filter((a) => a.kind === 'tool').map((a) => a.message),
      ['wrote src/new.js', 'patched src/old.js', 'deleted src/gone.js'],
    );
  });

  it('uses step n for attempt n and repeats the last step past the end', async () => {
    const { cwd, runner } = setup({
      defaults: FAST,
      tasks: { t1: { actor: [{ write: { 'v.txt': 'one' } }, { write: { 'v.txt': 'two' } }] } },
    });
    const contents: string[] = [];
    for (const attempt of [1, 2, 3]) {
      const result = await runner.run(input(cwd, { attempt }));
      assert.equal(result.status, 'ok', result.error);
      contents.push(readFileSync(join(cwd, 'v.txt'), 'utf8'));
    }
    assert.deepEqual(contents, ['one', 'two', 'two']);
  });

  it('returns a critic verdict as text and structured output, and raw text as is', async () => {
    const verdict = {
      decision: 'changes_required',
      summary: 'Missing test.',
      findings: [{ file: 'a.js', line: 3, severity: 'major', category: 'requirements', message: 'No test for empty input.' }],
    };
    const { cwd, runner } = setup({ defaults: FAST, tasks: { t1: { critic: [{ verdict }, { raw: 'LGTM, ship it' }] } } });
    const first = await runner.run(input(cwd, { role: 'critic', access: 'read-only' }));
    assert.equal(first.status, 'ok', first.error);
    assert.deepEqual(first.structured, verdict);
    assert.deepEqual(JSON.parse(first.text), verdict);
    assert.equal(first.sessionId, 'scripted-t1-critic');

    const second = await runner.run(input(cwd, { role: 'critic', access: 'read-only', attempt: 2 }));
    assert.equal(second.status, 'ok');
    assert.equal(second.text, 'LGTM, ship it');
    assert.equal(second.structured, undefined);
  });

  it('falls back for unlisted tasks: fallback steps, else a no-op actor and a green critic', async () => {
    const bare = setup({ defaults: FAST });
    const actor = await bare.runner.run(input(bare.cwd, { taskId: 'other' }));
    assert.equal(actor.status, 'ok');
    assert.match(actor.text, /no scripted actor step for task other; nothing changed/);
    const critic = await bare.runner.run(input(bare.cwd, { taskId: 'other', role: 'critic' }));
    assert.equal((critic.structured as { decision: string }).decision, 'green');

    const withFallback = setup({ defaults: FAST, fallback: { actor: [{ write: { 'f.txt': 'fallback' } }] } });
    const result = await withFallback.runner.run(input(withFallback.cwd, { taskId: 'other' }));
    assert.equal(result.status, 'ok', result.error);
    assert.equal(readFileSync(join(withFallback.cwd, 'f.txt'), 'utf8'), 'fallback');
  });

  it('reports fail as agent_error and quota as quota', async () => {
    const { cwd, runner } = setup({ defaults: FAST, tasks: { t1: { actor: [{ fail: 'model refused' }, { quota: true }] } } });
    const failed = await runner.run(input(cwd));
    assert.equal(failed.status, 'agent_error');
    assert.equal(failed.error, 'model refused');
    const quota = await runner.run(input(cwd, { attempt: 2 }));
    assert.equal(quota.status, 'quota');
    assert.match(quota.error ?? '', /usage limit/);
  });

  it('returns the scripted usage figures exactly, step over defaults', async () => {
    const usage = { inputTokens: 1234, outputTokens: 567, cacheReadTokens: 89, cacheWriteTokens: 10 };
    const { cwd, runner } = setup({
      defaults: { delayMs: 0, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.5 },
      tasks: { t1: { actor: [{ usage, costUsd: 0.0123 }], critic: [{}] } },
    });
    const actor = await runner.run(input(cwd));
    assert.deepEqual(actor.usage, { ...usage, costUsd: 0.0123 });
    const critic = await runner.run(input(cwd, { role: 'critic' }));
    assert.deepEqual(critic.usage, { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 });
  });

  it('keeps a watchdog quiet while it works (heartbeats on its output), and says only its scripted lines', async () => {
    const say = ['reading the code', 'running the tests'];
    const { cwd, runner } = setup({ tasks: { t1: { actor: [{ delayMs: 5000, say }] } } });
    const activity: RunnerActivity[] = [];
    // Twice the watchdog's limit; the limit itself generous, as a loaded machine starts node slowly.
    const result = await runner.run(input(cwd, { idleTimeoutMs: 2500 }), (a) => activity.push(a));
    assert.equal(result.status, 'ok', result.error);
    assert.match(activity[0]!.message, /scripted actor started on task t1, attempt 1/);
    assert.deepEqual(
      activity.slice(1).map((a) => [a.kind, a.message]),
      say.map((message) => ['text', message]),
      'the heartbeats are not activity',
    );
  });

  it('stops a hanging agent as idle_timeout and leaves no process behind', async () => {
    const { cwd, runner } = setup({ tasks: { t1: { actor: [{ hang: true }] } } });
    const activity: RunnerActivity[] = [];
    // Generous: the node process itself may take most of a second to start on a loaded machine.
    const result = await runner.run(input(cwd, { idleTimeoutMs: 1500 }), (a) => activity.push(a));
    assert.equal(result.status, 'idle_timeout');
    assert.match(result.error ?? '', /no activity for 1500 ms/);
    assert.equal(result.cause, 'stuck');
    assert.match(result.lastOutput ?? '', /scripted actor started/);
    assert.equal(activity.length, 1);
    const pid = Number(/pid (\d+)/.exec(activity[0]!.message)?.[1]);
    assert.ok(pid > 0);
    assert.equal(isProcessAlive(pid), false, 'the agent process survived');
  });

  it('reports a crash with the last output', async () => {
    const { cwd, runner } = setup({ defaults: FAST, tasks: { t1: { actor: [{ crash: true, write: { 'half.txt': 'partial' } }] } } });
    const result = await runner.run(input(cwd));
    assert.equal(result.status, 'crashed');
    assert.equal(result.error, 'the scripted agent exited with code 3 without a result');
    assert.equal(result.cause, 'exited');
    assert.match(result.lastOutput ?? '', /"about to/);
    assert.equal(readFileSync(join(cwd, 'half.txt'), 'utf8'), 'partial');
  });

  it('is cancelled through its AbortSignal: the agent is stopped before it finishes its step', async () => {
    const { cwd, runner } = setup({ tasks: { t1: { actor: [{ delayMs: 60_000, write: { 'done.txt': 'finished' } }] } } });
    const controller = new AbortController();
    let pid = 0;
    // Cancelled once the agent is at work: its first activity names its process.
    const result = await runner.run(input(cwd, { signal: controller.signal }), (a) => {
      pid ||= Number(/pid (\d+)/.exec(a.message)?.[1]);
      controller.abort();
    });
    assert.equal(result.status, 'cancelled');
    assert.ok(pid > 0, 'the agent had started');
    assert.equal(isProcessAlive(pid), false, 'the agent process survived');
    assert.equal(existsSync(join(cwd, 'done.txt')), false, 'the step did not run to its end');
  });

  it('rejects paths that leave the working directory', async () => {
    for (const bad of ['../escape.txt', '/tmp/taskloom-absolute.txt', 'a/../../escape.txt']) {
      const { cwd, runner } = setup({ defaults: FAST, tasks: { t1: { actor: [{ write: { [bad]: 'x' } }] } } });
      const result = await runner.run(input(cwd));
      assert.equal(result.status, 'agent_error', bad);
      assert.match(result.error ?? '', /tasks\.t1\.actor\[0\]\.write/);
      assert.ok(result.error?.includes(`"${bad}"`), result.error);
      assert.equal(existsSync(join(cwd, '..', 'escape.txt')), false);
    }
    assert.equal(existsSync('/tmp/taskloom-absolute.txt'), false);
  });

  it('reports a patch whose text is absent as agent_error naming the file', async () => {
    const { cwd, runner } = setup({ defaults: FAST, tasks: { t1: { actor: [{ patch: [{ path: 'a.js', find: 'nope', replace: 'yes' }] }] } } });
    writeFileSync(join(cwd, 'a.js'), 'const a = 1;\n');
    const result = await runner.run(input(cwd));
    assert.equal(result.status, 'agent_error');
    assert.match(result.error ?? '', /not in a\.js/);
  });

  it('reports an invalid scenario as agent_error naming the file and the field', async () => {
    const { cwd, runner, scenarioPath } = setup({ tasks: { t1: { critic: [{ verdict: { decision: 'maybe', summary: '', findings: [] } }] } } });
    const result = await runner.run(input(cwd, { role: 'critic' }));
    assert.equal(result.status, 'agent_error');
    assert.ok(result.error?.includes(scenarioPath), result.error);
    assert.match(result.error ?? '', /tasks\.t1\.critic\[0\]\.verdict\.decision/);
  });

  it('fails to spawn with a clear message when the agent is not built', async () => {
    const runner = new ScriptedRunner({ scenarioPath: 'x.json', agentEntry: join(tmp, 'missing.js') });
    const result = await runner.run(input(tmp));
    assert.equal(result.status, 'spawn_failed');
    assert.match(result.error ?? '', /missing\.js is missing — run `node esbuild\.mjs`/);
  });

  it('finds dist/scripted-agent.js from the sources and from dist/ by default', async () => {
    assert.equal(findPackageRoot(join(root, 'src/engine/agents/scripted')), root);
    assert.equal(findPackageRoot(join(root, 'dist')), root);
    const built = join(root, 'dist/scripted-agent.js');
    assert.ok(existsSync(built), `${built} is missing: build first with \`node esbuild.mjs\``);
    const { cwd, scenarioPath } = setup({ defaults: FAST, tasks: { t1: { actor: [{ text: 'from dist' }] } } });
    const result = await new ScriptedRunner({ scenarioPath }).run(input(cwd));
    assert.equal(result.status, 'ok', result.error);
    assert.equal(result.text, 'from dist');
  });
});
