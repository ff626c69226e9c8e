import { constants } from 'node:os';
import type { AgentKind } from '../domain/runConfig';
import type { Confinement, SandboxSettings } from '../domain/sandboxSettings';
import { launchUnconfined, type LaunchOptions, type ProcessLauncher } from '../process/launcher';
import { runProcess, type ProcessResult } from '../process/processGroup';
import { resolveExecutable } from '../process/findOnPath';
import { probeBubblewrap } from './bubblewrap';
import { allowedEnvNames, filterEnv } from './envAllowList';
import { formatHostPort } from './hostPort';
import { withSandboxedCommand } from './sandboxedCommand';
import type { ProcessRole } from './sandboxPolicy';

/** One kind of process a run starts: who it works for and in which checkout. */
export interface TaskProcessRequest {
  role: ProcessRole;
  /** The checkout it works in (its working directory). */
  checkout: string;
  /** It may change the checkout: an actor at work, setup, a gate. Planners and critics only read. */
  writes: boolean;
  /** The agent, for an agent's call: its own credential and model host reach it, no other process. */
  agent?: AgentKind;
  /** Paths inside the checkout this process must not see (copied secrets for an agent, the main checkout's untracked files). */
  hideInCheckout?: string[];
}

export interface SandboxContext {
  confinement: Confinement;
  settings: SandboxSettings;
}

/** The setting that lets a process of each role reach more. */
export const HOSTS_SETTING: Record<ProcessRole, string> = {
  gate: 'taskloom.sandbox.gateHosts',
  setup: 'taskloom.sandbox.setupHosts',
  planner: 'taskloom.sandbox.allowedHosts',
  actor: 'taskloom.sandbox.allowedHosts',
  critic: 'taskloom.sandbox.allowedHosts',
};


/**
 * The launcher for one kind of process of a run: every start goes through here. Confined, each
 * start gets a policy (policyFor.ts) enforced by bubblewrap, a scratch folder as its TMPDIR
 * (removed after), and, when it may reach a host, an egress proxy outside and a relay inside.
 * Unconfined (by choice, or where no sandbox can start), the environment is still the allow-list.
 */
export function taskLauncher(context: SandboxContext, request: TaskProcessRequest): ProcessLauncher {
  const allowed = allowedEnvNames(request.agent, context.settings.env);
  if (!context.confinement.confined) {
    return (options) => launchUnconfined({ ...options, env: filterEnv(options.env ?? process.env, allowed) });
  }
  return (options) => launchConfined(context.settings, request, options, filterEnv(options.env ?? process.env, allowed));
}

async function launchConfined(settings: SandboxSettings, request: TaskProcessRequest, options: LaunchOptions, env: Record<string, string>): Promise<ProcessResult> {
  const bubblewrap = await probeBubblewrap();
  if (!bubblewrap.usable) return notStarted(bubblewrap.reason);
  const { needs, ...processOptions } = options;
  // Looked up here, as the caller would be told: inside, a missing program is only bubblewrap's exit 1.
  const executable = resolveExecutable(options.command, env.PATH);
  if (!executable) return runProcess({ ...processOptions, env });
  return withSandboxedCommand(settings, request, { command: [executable, ...options.args], home: env.HOME, needs }, async (sandboxed) => {
    const result = await runProcess({
      ...processOptions,
      ...graceful(bubblewrap.path, [...sandboxed.bubblewrapArgs, '--'], sandboxed.argv),
      // npm asks the registry for a newer npm at every start of a home it has not seen: each sandbox's home is new.
      env: { ...env, ...sandboxed.env, npm_config_update_notifier: 'false' },
      statusPipe: true,
    });
    return withSandboxOutcome(result, { hosts: sandboxed.policy.hosts.map(formatHostPort), blocked: sandboxed.blocked(), hostsSetting: HOSTS_SETTING[request.role] });
  });
}

/**
 * Stopping a call signals its process group: SIGINT, then SIGTERM, then SIGKILL, so that an agent
 * can save its session first. bubblewrap would die at the first of them, and the sandbox with it
 * (--die-with-parent), cutting that short; so bubblewrap is started with them ignored (by a shell
 * that execs it: an ignored signal stays ignored across exec), and the command inside with them
 * back at their defaults (coreutils' env --default-signal). SIGKILL still ends everything.
 */
export function graceful(bubblewrap: string, args: string[], command: string[]): { command: string; args: string[] } {
  const stopSignals = 'INT,TERM,HUP';
  return {
    command: '/bin/sh',
    args: ['-c', `trap '' ${stopSignals.replaceAll(',', ' ')}; exec "$0" "$@"`, bubblewrap, ...args, '/usr/bin/env', `--default-signal=${stopSignals}`, ...command],
  };
}

/** bubblewrap reports on fd 3 once the command has started (`child-pid`): without that report the sandbox itself failed and the command never ran. */
function withSandboxOutcome(result: ProcessResult, sandbox: NonNullable<ProcessResult['sandbox']>): ProcessResult {
  const started = /"child-pid"/.test(result.statusOutput ?? '');
  const { statusOutput: _status, ...rest } = result;
  const outcome: ProcessResult = { ...rest, sandbox };
  if (result.spawnError || result.cancelled) return outcome;
  if (!started) return { ...outcome, sandboxFailure: `the sandbox did not start: ${result.stderr.trim() || `bubblewrap exited with ${result.exitCode}`}` };
  return { ...outcome, ...signalOfExit(result) };
}

/** bubblewrap exits 128 + N when its command was killed by signal N (as a shell says it): said as that signal. */
function signalOfExit(result: ProcessResult): Pick<ProcessResult, 'exitCode' | 'signal'> | undefined {
  if (result.signal !== null || result.exitCode === null || result.exitCode <= 128) return undefined;
  const name = Object.entries(constants.signals).find(([, number]) => number === result.exitCode! - 128)?.[0];
  return name ? { exitCode: null, signal: name as NodeJS.Signals } : undefined;
}

function notStarted(reason: string): ProcessResult {
  return { exitCode: null, signal: null, stdout: '', stderr: '', output: '', timedOut: false, idleTimedOut: false, cancelled: false, durationMs: 0, sandboxFailure: reason };
}
