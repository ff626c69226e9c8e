import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClaudeRunner } from '../agents/claude/claudeRunner';
import { CodexRunner } from '../agents/codex/codexRunner';
import type { AgentRunner, RunnerResult } from '../agents/runner';
import { findOnPath } from '../process/findOnPath';
import { runProcess } from '../process/processGroup';
import { gitVersion, inspectRepo } from '../workspace/repoInspector';

/** One line of the doctor's report; any `fail` blocks a run. */
export interface DoctorCheck {
  status: 'ok' | 'warn' | 'fail';
  label: string;
  text: string;
}

export interface DoctorOptions {
  /** Configured agent binaries, checked before the environment and PATH. */
  claudePath?: string;
  codexPath?: string;
  /** Make one trivial call to each agent Taskloom drives (slow; costs a request). */
  probe?: boolean;
  /** Hears each check as soon as it is known (the CLI prints as it goes). */
  onCheck?: (check: DoctorCheck) => void;
}

interface AgentCli {
  name: string;
  what: string;
  /** A configured path, checked before PATH. */
  path?: (options: DoctorOptions) => string | undefined;
  /** Present for the agents Taskloom drives, which `probe` can call. */
  runner?: (binaryPath: string) => AgentRunner;
}

const AGENT_CLIS: AgentCli[] = [
  {
    name: 'claude',
    what: 'Claude Code',
    path: (o) => o.claudePath || process.env.TASKLOOM_CLAUDE_PATH,
    runner: (p) => new ClaudeRunner({ binaryPath: p }),
  },
  {
    name: 'codex',
    what: 'OpenAI Codex CLI',
    path: (o) => o.codexPath || process.env.TASKLOOM_CODEX_PATH,
    runner: (p) => new CodexRunner({ binaryPath: p }),
  },
  { name: 'aider', what: 'aider' },
  { name: 'gemini', what: 'Gemini CLI' },
];
const PROBE_TIMEOUT_MS = 120_000;

/** Checks what a run needs in `cwd`: git, the repository, the agent CLIs. Says what to fix. */
export async function runDoctorChecks(cwd: string, options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const add = (status: DoctorCheck['status'], label: string, text: string) => {
    const check = { status, label, text };
    checks.push(check);
    options.onCheck?.(check);
  };

  try {
    const git = await gitVersion();
    if (git.supportsWorktrees) add('ok', 'git', `${git.version} (worktrees supported)`);
    else add('fail', 'git', `${git.version} is too old for worktrees; install git 2.17 or newer`);
  } catch (error) {
    add('fail', 'git', (error as Error).message);
  }

  try {
    const repo = await inspectRepo(cwd);
    add('ok', 'repository', `${repo.root} on ${repo.headRef} @ ${repo.headCommit.slice(0, 10)}`);
    if (repo.dirtyPaths.length) {
      add('warn', 'working tree', `${repo.dirtyPaths.length} uncommitted path(s); runs start from the last commit and ignore them`);
    } else add('ok', 'working tree', 'clean');
    const lockFile = join(repo.root, '.taskloom', 'lock');
    if (existsSync(lockFile)) add('warn', 'lock', `held: ${readFileSync(lockFile, 'utf8').trim()}`);
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    add('fail', 'repository', `${(error as Error).message}${hint ? ` — ${hint}` : ''}`);
  }

  for (const agent of AGENT_CLIS) {
    const found = agent.path?.(options) || findOnPath(agent.name);
    if (!found) {
      add('warn', agent.name, `${agent.what} not found on PATH`);
      continue;
    }
    add('ok', agent.name, `${agent.what} ${await versionOf(found)} at ${found}`);
    if (options.probe && agent.runner) {
      const result = await probe(agent.runner(found));
      const line = `trivial call: ${result.status} in ${(result.durationMs / 1000).toFixed(1)} s${result.error ? ` — ${result.error}` : ''}`;
      add(result.status === 'ok' ? 'ok' : 'warn', '', line);
    }
  }
  add('ok', 'scripted', 'built-in scripted agent (no network) is always available');
  return checks;
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
