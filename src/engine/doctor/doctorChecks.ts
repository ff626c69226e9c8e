import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failureDetail, type AgentRunner, type RunnerResult } from '../agents/runner';
import { loadScenario, ScenarioError } from '../agents/scripted/scenario';
import { agentsInUse, type AgentUse } from '../domain/agentRoles';
import type { AgentConfig, AgentKind, RunConfig } from '../domain/runConfig';
import { errorText } from '../domain/taskloomError';
import { assertTaskloomFolder } from '../store/taskloomFolder';
import { resolveExecutable } from '../process/findOnPath';
import { createRunner } from '../session/agentFactory';
import { runProcess } from '../process/processGroup';
import { gitVersion, inspectRepo } from '../workspace/repoInspector';
import { counted } from '../text/counted';
import { confinementWords } from '../text/confinementWords';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../domain/sandboxSettings';
import { resolveConfinement } from '../sandbox/confinement';
import { taskLauncher, type SandboxContext } from '../sandbox/taskLauncher';
import type { LayeredSettings } from '../domain/settingLayers';
import type { ProjectSettingKey } from '../domain/settingKeys';
import { settingSourceLines, withheldWords } from '../text/settingSourceWords';
import { dryRunGate } from './gateDryRun';
import { describeGatePlan } from './gatePlan';

/** One line of the doctor's report; any `fail` blocks a run. */
export interface DoctorCheck {
  status: 'ok' | 'warn' | 'fail';
  label: string;
  text: string;
}

export interface DoctorOptions {
  /**
   * What a run with these settings would use: every agent it calls must be there (else `fail`),
   * and its gate commands are named. Without it, the agents Taskloom drives are looked for.
   */
  config?: RunConfig;
  /** Why the settings make no run config, reported as a failure. */
  settingsProblem?: { message: string; hint?: string };
  /**
   * Where each setting came from; and the keys of taskloom.json left out, and why: not allowed
   * on this machine (the CLI: a failure, as a run would refuse) or an untrusted workspace (the editor: a warning).
   */
  provenance?: LayeredSettings & { leftOut?: { file: string; keys: ProjectSettingKey[]; why: 'not_allowed' | 'workspace_untrusted' } };
  /** Make one trivial call to each agent Taskloom drives (slow; costs a request). */
  probe?: boolean;
  /** Hears each check as soon as it is known (the CLI prints as it goes). */
  onCheck?: (check: DoctorCheck) => void;
}

const AGENT_NAMES: Record<AgentKind, string> = {
  claude: 'Claude Code',
  codex: 'OpenAI Codex CLI',
  command: 'command agent',
  scripted: 'scripted agent',
};
const PROBE_TIMEOUT_MS = 120_000;

/** Checks what a run needs in `cwd`: git, the repository, the agents it calls and its gate. Says what to fix. */
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

  let repoRoot: string | undefined;
  try {
    const repo = await inspectRepo(cwd);
    repoRoot = repo.root;
    add('ok', 'repository', `${repo.root} on ${repo.headRef} @ ${repo.headCommit.slice(0, 10)}`);
    if (repo.dirtyPaths.length) {
      add('warn', 'working tree', `${counted(repo.dirtyPaths.length, 'uncommitted path')}; runs start from the last commit and ignore them`);
    } else add('ok', 'working tree', 'clean');
    assertTaskloomFolder(join(repo.root, '.taskloom'));
    const lockFile = join(repo.root, '.taskloom', 'lock');
    if (existsSync(lockFile)) add('warn', 'lock', `held: ${readFileSync(lockFile, 'utf8').trim()}`);
  } catch (error) {
    add('fail', 'repository', errorText(error as Error));
  }

  if (options.provenance) {
    for (const line of settingSourceLines(options.provenance.values, options.provenance.sources)) add('ok', 'settings', line);
    const { leftOut } = options.provenance;
    if (leftOut?.keys.length) add(leftOut.why === 'not_allowed' ? 'fail' : 'warn', 'settings', withheldWords(leftOut.file, leftOut.keys, leftOut.why));
  }
  if (options.settingsProblem) {
    add('fail', 'settings', errorText(options.settingsProblem));
  }
  const sandbox = await checkSandbox(options.config?.sandbox ?? DEFAULT_SANDBOX_SETTINGS, add);
  const uses = options.config ? agentsInUse(options.config) : DRIVEN_AGENTS.map((agent) => ({ agent, roles: [] }));
  for (const use of uses) await checkAgent(use, options, add, sandbox);
  if (options.config) {
    if (options.config.gateCommands.length === 0) add('warn', 'gate', 'no gate commands set or detected: only the critic checks the work (set taskloom.gate.commands, or --gate)');
    for (const check of await dryRunGate(options.config, repoRoot, sandbox)) add(check.status, 'gate', check.text);
    if (repoRoot) for (const line of await describeGatePlan(options.config, repoRoot)) add('ok', 'gate', line);
  }
  return checks;
}

/**
 * The doctor's one-line answer, from the checks and the run config they were made for (never
 * "ready" when anything fails): what blocks a run, or which agent plays which role and which
 * gate the work must pass.
 */
export function doctorVerdict(checks: readonly DoctorCheck[], config?: RunConfig): string {
  const failed = checks.filter((c) => c.status === 'fail');
  if (failed.length) {
    return `${counted(failed.length, 'problem')} ${failed.length === 1 ? 'blocks' : 'block'} a run: ${failed.map((c) => `${c.label}: ${c.text}`).join('; ')}`;
  }
  const warnings = checks.filter((c) => c.status === 'warn').length;
  const warned = warnings ? `; ${counted(warnings, 'warning')}` : '';
  if (!config) return `Nothing blocks a run${warned}.`;
  const agents = agentsInUse(config).map((use) => `${AGENT_NAMES[use.agent.kind]} as ${use.roles.join(', ')}`);
  const gate = config.gateCommands.length ? `gate \`${config.gateCommands.join(' && ')}\`` : 'no gate (only the critic checks the work)';
  return `Ready to run: ${agents.join('; ')}; ${gate}${warned}.`;
}

/** Without settings: the agents Taskloom drives, where the environment says they are. */
const DRIVEN_AGENTS: AgentConfig[] = [
  { kind: 'claude', binaryPath: process.env.TASKLOOM_CLAUDE_PATH || 'claude', models: {} },
  { kind: 'codex', binaryPath: process.env.TASKLOOM_CODEX_PATH || 'codex', models: {}, configOverrides: [] },
];

type AddCheck = (status: DoctorCheck['status'], label: string, text: string) => void;

/** Whether a run's processes would be confined here (refusing to run is a failure); the probe runs as a run would. */
async function checkSandbox(settings: SandboxSettings, add: AddCheck): Promise<SandboxContext | undefined> {
  try {
    const confinement = await resolveConfinement(settings.mode);
    add(confinement.confined ? 'ok' : 'warn', 'sandbox', confinementWords(confinement));
    return { confinement, settings };
  } catch (error) {
    add('fail', 'sandbox', errorText(error as Error));
    return undefined;
  }
}

/** Is the agent there (a missing one a run calls is a failure), its version, and with `probe` does it answer. */
async function checkAgent({ agent, roles }: AgentUse, options: DoctorOptions, add: AddCheck, sandbox: SandboxContext | undefined): Promise<void> {
  const what = AGENT_NAMES[agent.kind];
  const used = roles.length ? ` — ${roles.join(', ')}` : '';
  if (agent.kind === 'scripted') {
    // The run's own parser: a scenario it would refuse fails here, with the words each call would fail with.
    try {
      loadScenario(agent.scriptPath);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      add('fail', agent.kind, `built-in ${what}${used}: ${error.message}`);
      return;
    }
    add('ok', agent.kind, `built-in ${what} (no network), replaying ${agent.scriptPath}${used}`);
    return;
  }
  const binary = agent.kind === 'command' ? agent.argv[0]! : agent.binaryPath;
  const found = resolveExecutable(binary);
  if (!found) {
    add(roles.length ? 'fail' : 'warn', agent.kind, `${what} not found (${binary.includes('/') ? binary : `\`${binary}\` on PATH`})${used}`);
    return;
  }
  add('ok', agent.kind, `${what} ${await versionOf(found)} at ${found}${used}`);
  if (options.probe && agent.kind !== 'command' && sandbox) {
    const result = await probe(createRunner({ ...agent, binaryPath: found }), agent.kind, sandbox);
    const line = `trivial call: ${result.status} in ${(result.durationMs / 1000).toFixed(1)} s${result.error ? ` — ${failureDetail(result)}` : ''}`;
    add(result.status === 'ok' ? 'ok' : 'warn', '', line);
  }
}

async function versionOf(binary: string): Promise<string> {
  const result = await runProcess({ command: binary, args: ['--version'], cwd: process.cwd(), timeoutMs: 15_000 });
  return result.exitCode === 0 ? result.stdout.trim().split('\n')[0]! : '(version unknown)';
}

/** One cheap read-only call in an empty folder, confined as a run's would be: does the agent answer at all (install, login, network)? */
async function probe(runner: AgentRunner, agent: AgentKind, sandbox: SandboxContext): Promise<RunnerResult> {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-probe-'));
  try {
    return await runner.run({
      launch: taskLauncher(sandbox, { role: 'planner', checkout: dir, writes: false, agent }),
      confined: sandbox.confinement.confined,
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
