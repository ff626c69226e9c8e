import type { GateCommandResult } from '../domain/events';
import type { ProcessLauncher } from '../process/launcher';
import type { OutputStream, ProcessResult } from '../process/processGroup';
import { failureExcerpt } from './failureExcerpt';
import { redactSecrets } from '../io/redactSecrets';

export interface GateActivity {
  command: string;
  stream: OutputStream;
  /** The chunk of output, already redacted. */
  text: string;
}

export interface RunGateOptions {
  /** Shell commands, run in order with `sh -c`; all must exit 0. */
  commands: string[];
  /** Starts each command: the run's sandbox for a setup or gate command (src/engine/session/taskProcesses.ts). */
  launch: ProcessLauncher;
  cwd: string;
  /** For the whole gate: each command gets what the earlier ones left. */
  timeoutMs: number;
  /** No output from a command for this long stops it as stuck. */
  idleTimeoutMs: number;
  signal: AbortSignal;
  /** The commands' complete environment (default: this process's); also what is redacted. */
  env?: NodeJS.ProcessEnv;
  onActivity?: (activity: GateActivity) => void;
  killGraceMs?: number;
}

export interface GateResult {
  passed: boolean;
  /** A command showed no output for idleTimeoutMs and was stopped (the watchdog). */
  stuck: boolean;
  cancelled: boolean;
  /** The sandbox around a command could not start (nothing ran): why. Not the project's failure, so not the actor's to fix. */
  sandboxFailure?: string;
  /** The commands that ran, up to and including the first failure. */
  commands: GateCommandResult[];
}

export const GATE_OUTPUT_CAP_BYTES = 64 * 1024;
/** sh's exit status for "command not found". */
const COMMAND_NOT_FOUND = 127;

/**
 * The mechanical gate: Taskloom runs the project's own checks itself instead of trusting an
 * agent that says its work passes.
 */
export async function runGate(opts: RunGateOptions): Promise<GateResult> {
  const deadline = Date.now() + opts.timeoutMs;
  const commands: GateCommandResult[] = [];
  for (const command of opts.commands) {
    const ran = await runGateCommand(command, { ...opts, timeoutMs: Math.max(0, deadline - Date.now()) });
    commands.push(ran.result);
    const stop = gateStop(ran);
    if (stop) return { ...stop, commands };
  }
  return { passed: true, stuck: false, cancelled: false, commands };
}

/** One gate command as it ran, and what its process did (for whether the gate goes on). */
export interface RanGateCommand {
  result: GateCommandResult;
  process: ProcessResult;
}

/** What runs in place of the command as written: the same command with a runner's report, or a narrower selection. */
export interface GateCommandVariant {
  command: string;
  env?: Record<string, string>;
  /** Folders it writes besides the checkout (the runner's report). */
  writable?: string[];
}

/** Runs one gate command (or its variant), recorded under the command as the user wrote it, output capped and redacted. */
export async function runGateCommand(command: string, opts: Omit<RunGateOptions, 'commands'>, variant?: GateCommandVariant): Promise<RanGateCommand> {
  const env = withoutTestRunnerContext({ ...(opts.env ?? process.env), ...variant?.env });
  const result = await opts.launch({
    command: 'sh',
    args: ['-c', variant?.command ?? command],
    cwd: opts.cwd,
    env,
    timeoutMs: opts.timeoutMs,
    idleTimeoutMs: opts.idleTimeoutMs,
    signal: opts.signal,
    maxOutputBytes: GATE_OUTPUT_CAP_BYTES,
    killGraceMs: opts.killGraceMs,
    ...(variant?.writable ? { needs: { writable: variant.writable } } : {}),
    onOutput: (chunk, stream) => opts.onActivity?.({ command, stream, text: redactSecrets(chunk, env) }),
  });
  const note = explain(command, result, opts);
  const failed = result.exitCode !== 0;
  const excerpt = failed ? failureExcerpt(result.output) : undefined;
  return {
    process: result,
    result: {
      command,
      exitCode: result.exitCode,
      timedOut: result.timedOut || result.idleTimedOut,
      durationMs: result.durationMs,
      output: redactSecrets(result.output + note, env),
      ...(excerpt ? { failure: { excerpt: redactSecrets(`${excerpt.text}${note ? `\n${note.trimStart()}` : ''}`, env), shape: excerpt.shape } } : {}),
    },
  };
}

/** The gate ends here whatever the judgement: it was stopped, stuck, or could not start; or (`failed`) the command failed. */
export function gateStop(ran: RanGateCommand, failed = ran.process.exitCode !== 0): Omit<GateResult, 'commands'> | undefined {
  const { process: result } = ran;
  if (result.cancelled) return { passed: false, stuck: false, cancelled: true };
  if (result.sandboxFailure) return { passed: false, stuck: false, cancelled: false, sandboxFailure: result.sandboxFailure };
  if (result.idleTimedOut) return { passed: false, stuck: true, cancelled: false };
  if (failed) return { passed: false, stuck: false, cancelled: false };
  return undefined;
}

/** What the output alone would not tell the agent or the human reading the failure. */
function explain(command: string, result: ProcessResult, opts: Pick<RunGateOptions, 'idleTimeoutMs' | 'timeoutMs'>): string {
  const note = (text: string) => `${result.output === '' || result.output.endsWith('\n') ? '' : '\n'}[taskloom] ${text}\n`;
  if (result.spawnError) return note(`the gate could not run \`${command}\`: ${result.spawnError}`);
  if (result.sandboxFailure) return note(`\`${command}\` did not run: ${result.sandboxFailure}`);
  if (result.cancelled) return note(`\`${command}\` was cancelled`);
  if (result.idleTimedOut) {
    return note(`\`${command}\` printed nothing for ${seconds(opts.idleTimeoutMs)} and was stopped as stuck`);
  }
  if (result.timedOut) return note(`\`${command}\` did not finish within the gate timeout of ${seconds(opts.timeoutMs)} and was stopped`);
  if (result.exitCode === COMMAND_NOT_FOUND) {
    return note(`\`${command}\` exited with 127: command not found — is the tool installed and on PATH?`);
  }
  if (result.exitCode === null) return note(`\`${command}\` was killed by ${result.signal ?? 'a signal'}`);
  if (result.exitCode !== 0 && result.sandbox) return note(sandboxNetworkNote(result.sandbox));
  return '';
}

/**
 * Node's test runner marks its children with NODE_TEST_CONTEXT; a project's own `node --test`
 * that inherits it skips its files and exits 0, so a failing suite would pass the gate
 * whenever Taskloom itself runs under a test runner.
 */
function withoutTestRunnerContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!('NODE_TEST_CONTEXT' in env)) return env;
  const { NODE_TEST_CONTEXT: _ignored, ...rest } = env;
  return rest;
}

/**
 * A confined command that failed may have needed what the sandbox denies: a host, or a service of
 * this machine (a database on localhost). Said as what was so, with the setting that allows more.
 */
function sandboxNetworkNote({ hosts, blocked, hostsSetting }: NonNullable<ProcessResult['sandbox']>): string {
  const reach = hosts.length ? `reaching only ${hosts.length > 3 ? `${hosts.slice(0, 3).join(', ')} and ${hosts.length - 3} more` : hosts.join(', ')}` : 'with no network but its own loopback (not this machine\'s localhost)';
  const refused = blocked.length ? `; the sandbox refused ${blocked.join(', ')}` : '';
  return `ran confined, ${reach}${refused}; a host or a service of this machine it needs (a database on 127.0.0.1:5432) is allowed by ${hostsSetting}`;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10}s`;
