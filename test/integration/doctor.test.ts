import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropicServer';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { pathWithoutBwrap } from '../helpers/pathWithoutBwrap';

const bin = join(findPackageRoot(__dirname), 'node_modules', '.bin');
/** A scenario the scripted agent accepts, so only the gate is in question. */
const goodScenario = () => writeInputs({ 'scenario.json': { tasks: {} } })['scenario.json']!;

describe('taskloom doctor', () => {
  let server: AnthropicServer;
  let repo: TempRepo;
  let onlyClaude: string;
  let home: string;
  before(async () => {
    server = await startAnthropicServer();
    repo = makeTempRepo({ files: { 'package.json': JSON.stringify({ name: 'p', scripts: { test: 'node --test' } }), 'README.md': '# p\n' } });
    onlyClaude = mkdtempSync(join(tmpdir(), 'taskloom-bin-'));
    symlinkSync(join(bin, 'claude'), join(onlyClaude, 'claude'));
    home = mkdtempSync(join(tmpdir(), 'taskloom-home-'));
  });
  after(async () => {
    await server.close();
    repo.cleanup();
    rmSync(onlyClaude, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('reports git, the repository, the agents a run would call and its gate', () => {
    const result = runCli(['doctor', '--cwd', repo.dir, '--claude-path', join(onlyClaude, 'claude'), '--gate', 'npm test']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /git +2\.\d+.*worktrees supported/);
    assert.match(result.stdout, new RegExp(`repository +${repo.dir} on main`));
    assert.match(result.stdout, /working tree clean/);
    assert.match(result.stdout, /✓ claude +Claude Code .* — planner, actor, critic/);
    assert.match(result.stdout, /✓ gate +`npm test` can start: `npm` found by the gate's shell \(confined\); package\.json has a script "test" \(dry run: nothing was run\)/);
    assert.match(result.stdout, /✓ sandbox +Confined \(bubblewrap [\d.]+\)/);
    assert.doesNotMatch(result.stdout, /codex|aider|gemini/, 'agents the run does not call are not reported');
    assert.match(result.stdout, /\nReady to run: Claude Code as planner, actor, critic; gate `npm test`\.\n$/);
  });

  it('says a run would go unconfined where bubblewrap is missing, and fails it with --sandbox on', () => {
    const noBwrap = { PATH: `${onlyClaude}:${pathWithoutBwrap()}` };
    const auto = runCli(['doctor', '--cwd', repo.dir, '--claude-path', join(onlyClaude, 'claude'), '--gate', 'true'], { env: noBwrap });
    assert.equal(auto.code, 0, auto.stdout + auto.stderr);
    assert.match(auto.stdout, /! sandbox +UNCONFINED: .* bubblewrap \(bwrap\) is not installed — install bubblewrap \(Debian\/Ubuntu: sudo apt-get install bubblewrap/);
    const on = runCli(['doctor', '--cwd', repo.dir, '--claude-path', join(onlyClaude, 'claude'), '--gate', 'true', '--sandbox', 'on'], { env: noBwrap });
    assert.notEqual(on.code, 0);
    assert.match(on.stdout, /sandbox: Taskloom cannot confine this run/);
  });

  it('fails when an agent a role uses is missing, naming the role', () => {
    const result = runCli(['doctor', '--cwd', repo.dir, '--claude-path', join(onlyClaude, 'claude'), '--critic-agent', 'codex', '--codex-path', '/nowhere/codex']);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /✓ claude +Claude Code .* — planner, actor/);
    assert.match(result.stdout, /✗ codex +OpenAI Codex CLI not found \(\/nowhere\/codex\) — critic/);
    assert.match(result.stdout, /\n1 problem blocks a run: codex: OpenAI Codex CLI not found/);
    assert.doesNotMatch(result.stdout, /Ready/, 'never "ready" with an agent missing');
    const bad = runCli(['doctor', '--cwd', repo.dir, '--actor-agent', 'gemini']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /✗ settings +--actor-agent must be one of claude, codex, command, scripted, got "gemini"/);
  });

  it('finds the agent CLIs on PATH and, with --probe, makes one trivial call', async () => {
    const scenario = server.scenario('single word OK', () => ({ type: 'text', text: 'OK' }));
    const result = await startCli(['doctor', '--probe', '--cwd', repo.dir], {
      PATH: `${onlyClaude}:/usr/bin:/bin`,
      HOME: home,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'test-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }).done;
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /claude +Claude Code 2\.\d+\.\d+ \(Claude Code\) at /);
    assert.match(result.stdout, /trivial call: ok in/);
    assert.ok(scenario.requests.length >= 1, 'the probe reached the model');
  });

  it("fails a scenario file the run refuses, with the run's own words", () => {
    const inputs = writeInputs({
      'scenario.json': { tasks: { only: { actor: [{ wrte: { 'a.txt': 'a' } }] } } },
      'plan.json': { goal: 'g', tasks: [{ id: 'only', title: 'Only', description: 'only', acceptance: [], dependsOn: [] }] },
    });
    const scenario = inputs['scenario.json']!;
    const run = runCli(['run', '--cwd', repo.dir, '--plan', inputs['plan.json']!, '--script', scenario, '--yes', '--gate', 'true']);
    const refused = /scenario file .* is invalid:\n(  - .*\n?)+/.exec(run.stdout)?.[0].trimEnd();
    assert.ok(refused, `the run refuses it:\n${run.stdout}`);
    const result = runCli(['doctor', '--cwd', repo.dir, '--script', scenario, '--gate', 'true']);
    assert.equal(result.code, 1, result.stdout);
    assert.ok(result.stdout.includes(`✗ scripted     built-in scripted agent — planner, actor, critic: ${refused}`), result.stdout);
    assert.doesNotMatch(result.stdout, /Ready/);
  });

  it('fails a gate command that cannot start, naming it, without running it', () => {
    const marker = join(home, 'gate-ran');
    const result = runCli(['doctor', '--cwd', repo.dir, '--script', goodScenario(), '--gate', `touch ${marker} && taskloom-no-such-tool --check`]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /✗ gate +`touch \S+ && taskloom-no-such-tool --check` cannot start: `taskloom-no-such-tool` is not on the PATH the gate sees \(confined\)/);
    assert.match(result.stdout, /\n1 problem blocks a run: gate: `touch \S+ && taskloom-no-such-tool --check` cannot start/);
    assert.ok(!existsSync(marker), 'a dry run starts nothing of the gate');

    // The program is looked up as the gate would see it: here, in a folder its sandbox hides.
    const hidden = join(home, '.ssh', 'bin');
    mkdirSync(hidden, { recursive: true });
    writeFileSync(join(hidden, 'hidden-tool'), '#!/bin/sh\n');
    chmodSync(join(hidden, 'hidden-tool'), 0o755);
    const env = { HOME: home, PATH: `${hidden}:${process.env.PATH}` };
    const confined = runCli(['doctor', '--cwd', repo.dir, '--script', goodScenario(), '--gate', 'hidden-tool'], { env });
    assert.match(confined.stdout, /✗ gate +`hidden-tool` cannot start: `hidden-tool` is not on the PATH the gate sees \(confined\)/);
    const unconfined = runCli(['doctor', '--cwd', repo.dir, '--script', goodScenario(), '--gate', 'hidden-tool', '--sandbox', 'off'], { env });
    assert.match(unconfined.stdout, /✓ gate +`hidden-tool` can start: `hidden-tool` found by the gate's shell \(dry run/);

    // npm's scripts are read from the base commit's package.json.
    const noScripts = makeTempRepo({ files: { 'package.json': JSON.stringify({ name: 'p', scripts: { test: 'echo "Error: no test specified" && exit 1' } }) } });
    const bare = makeTempRepo();
    try {
      const placeholder = runCli(['doctor', '--cwd', noScripts.dir, '--script', goodScenario(), '--gate', 'npm test', '--gate', 'npm run lint']);
      assert.equal(placeholder.code, 1);
      assert.match(placeholder.stdout, /✗ gate +`npm test` cannot start: package\.json's "test" script is npm init's placeholder, which always fails/);
      assert.match(placeholder.stdout, /✗ gate +`npm run lint` cannot start: package\.json has no "lint" script/);
      const none = runCli(['doctor', '--cwd', bare.dir, '--script', goodScenario(), '--gate', 'cd web && npm test']);
      assert.match(none.stdout, /✗ gate +`cd web && npm test` cannot start: the base commit has no web\/package\.json/);
    } finally {
      noScripts.cleanup();
      bare.cleanup();
    }
  });

  it('says how the gate will judge: the runner it recognised, what a task gate can narrow, the baseline and reruns', () => {
    const esm = makeTempRepo({
      files: {
        'package.json': `${JSON.stringify({ name: 'esm', type: 'module', scripts: { test: 'node --test' } })}\n`,
        'src/a.js': 'export const a = 1;\n',
        'test/a.test.js': "import test from 'node:test';\nimport { a } from '../src/a.js';\ntest('a', () => {});\n",
      },
    });
    try {
      const result = runCli(['doctor', '--cwd', esm.dir, '--script', goodScenario(), '--gate', 'npm test', '--gate', 'node lint.js', '--flaky-reruns', '2']);
      // The graph counts the test file among its modules.
      assert.match(result.stdout, /gate +`npm test`: node:test, compared test by test with the base; import graph: 2 ES modules, 1 test file/);
      assert.match(result.stdout, /gate +`node lint\.js`: no test runner recognised: judged by its exit code/);
      assert.match(result.stdout, /the base is gated once per run .*rerun alone up to 2× per gate/);
      const off = runCli(['doctor', '--cwd', esm.dir, '--script', goodScenario(), '--gate', 'npm test', '--no-baseline', '--no-affected-only']);
      assert.match(off.stdout, /every test at every gate \(taskloom\.gate\.affectedOnly is off\)/);
      assert.match(off.stdout, /the base is not gated/);
    } finally {
      esm.cleanup();
    }
  });

  it('says when a folder is not a repository', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskloom-nogit-'));
    const result = runCli(['doctor', '--cwd', dir]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /✗ repository .*not inside a git repository/);
    rmSync(dir, { recursive: true, force: true });
  });
});
