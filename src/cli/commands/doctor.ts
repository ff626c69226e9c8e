import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ClaudeRunner } from '../../engine/agents/claude/claudeRunner';
import { CodexRunner } from '../../engine/agents/codex/codexRunner';
import type { AgentRunner, RunnerResult } from '../../engine/agents/runner';
import { runProcess } from '../../engine/process/processGroup';
import { delimiter, join } from 'node:path';
import { gitVersion, inspectRepo } from '../../engine/workspace/repoInspector';
import { EXIT } from '../cliErrors';
import { green, red, yellow } from '../format';
import { parseCommandArgs } from '../parseCommandArgs';

interface AgentCli {
  name: string;
  what: string;
  /** A path configured by environment, checked before PATH. */
  path?: () => string | undefined;
  /** Present for the agents Taskloom drives, which `--probe` can call. */
  runner?: (binaryPath: string) => AgentRunner;
}

const AGENT_CLIS: AgentCli[] = [
  { name: 'claude', what: 'Claude Code', path: () => process.env.TASKLOOM_CLAUDE_PATH, runner: (p: string) => new ClaudeRunner({ binaryPath: p }) },
  { name: 'codex', what: 'OpenAI Codex CLI', path: () => process.env.TASKLOOM_CODEX_PATH, runner: (p: string) => new CodexRunner({ binaryPath: p }) },
  { name: 'aider', what: 'aider' },
  { name: 'gemini', what: 'Gemini CLI' },
];
const PROBE_TIMEOUT_MS = 120_000;

export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** Checks what a run needs and says what to fix; exit 1 when something blocks a run. */
export async function doctorCommand(argv: string[]): Promise<number> {
  const { values, cwd } = parseCommandArgs(argv, { probe: { type: 'boolean' } });
  let blocking = 0;
  const ok = (label: string, text: string) => process.stdout.write(`${green('✓')} ${label.padEnd(12)} ${text}\n`);
  const warn = (label: string, text: string) => process.stdout.write(`${yellow('!')} ${label.padEnd(12)} ${text}\n`);
  const fail = (label: string, text: string) => {
    blocking += 1;
    process.stdout.write(`${red('✗')} ${label.padEnd(12)} ${text}\n`);
  };

  try {
    const git = await gitVersion();
    if (git.supportsWorktrees) ok('git', `${git.version} (worktrees supported)`);
    else fail('git', `${git.version} is too old for worktrees; install git 2.17 or newer`);
  } catch (error) {
    fail('git', (error as Error).message);
  }

  try {
    const repo = await inspectRepo(cwd);
    ok('repository', `${repo.root} on ${repo.headRef} @ ${repo.headCommit.slice(0, 10)}`);
    if (repo.dirtyPaths.length) {
      warn('working tree', `${repo.dirtyPaths.length} uncommitted path(s); runs start from the last commit and ignore them`);
    } else ok('working tree', 'clean');
    const lockFile = join(repo.root, '.taskloom', 'lock');
    if (existsSync(lockFile)) warn('lock', `held: ${readFileSync(lockFile, 'utf8').trim()}`);
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    fail('repository', `${(error as Error).message}${hint ? ` — ${hint}` : ''}`);
  }

  for (const agent of AGENT_CLIS) {
    const found = agent.path?.() || findOnPath(agent.name);
    if (!found) {
      warn(agent.name, `${agent.what} not found on PATH`);
      continue;
    }
    const version = await versionOf(found);
    ok(agent.name, `${agent.what} ${version} at ${found}`);
    if (values.probe && agent.runner) {
      const result = await probe(agent.runner(found));
      const line = `trivial call: ${result.status} in ${(result.durationMs / 1000).toFixed(1)} s${result.error ? ` — ${result.error}` : ''}`;
      if (result.status === 'ok') ok('', line);
      else warn('', line);
    }
  }
  ok('scripted', 'built-in scripted agent (no network) is always available');
  return blocking ? EXIT.needsHuman : EXIT.ok;
}

async function versionOf(binary: string): Promise<string> {
  const result = await runProcess({ command: binary, args: ['--version'], cwd: process.cwd(), timeoutMs: 15_000 });
  return result.exitCode === 0 ? result.stdout.trim().split('\n')[0]! : '(version unknown)';
}

/** One cheap read-only call in an empty folder: does the agent answer at all (install, login, network)? */
async function probe(runner: AgentRunner): Promise<RunnerResult> {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-probe-'));
  try {
    return await runner.run({
      role: 'planner',
      prompt: 'Reply with the single word OK.',
      cwd: dir,
      taskId: null,
      attempt: 1,
      access: 'read-only',
      idleTimeoutMs: PROBE_TIMEOUT_MS,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
