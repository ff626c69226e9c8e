import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPackageRoot } from '../../src/engine/process/packageRoot';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropicServer';
import { runCli, startCli } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { pathWithoutBwrap } from '../helpers/pathWithoutBwrap';

const bin = join(findPackageRoot(__dirname), 'node_modules', '.bin');

describe('taskloom doctor', () => {
  let server: AnthropicServer;
  let repo: TempRepo;
  let onlyClaude: string;
  let home: string;
  before(async () => {
    server = await startAnthropicServer();
    repo = makeTempRepo();
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
    assert.match(result.stdout, /✓ gate +npm test/);
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

  it('says when a folder is not a repository', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskloom-nogit-'));
    const result = runCli(['doctor', '--cwd', dir]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /✗ repository .*not inside a git repository/);
    rmSync(dir, { recursive: true, force: true });
  });
});
