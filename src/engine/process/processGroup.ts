import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { CappedOutput } from './cappedOutput';
import { childRegistry } from './childRegistry';
import { killProcessGroup, signalGroupInTurn } from './killProcessGroup';
import { isProcessGroupAlive } from './liveness';

export { killProcessGroup } from './killProcessGroup';
export { LineSplitter } from './lineSplitter';

export type OutputStream = 'stdout' | 'stderr';

export interface RunProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /**
   * Written to stdin: a string, after which stdin is closed; or lines as the caller produces them,
   * stdin staying open until the iterable ends (an agent that takes input while it works). Without
   * it stdin is /dev/null.
   */
  input?: string | AsyncIterable<string>;
  timeoutMs?: number;
  /** No stdout/stderr output for this long aborts the process (the watchdog). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Cap of each of stdout, stderr and output; the head and the tail are kept. Default 1 MiB. */
  maxOutputBytes?: number;
  onOutput?: (chunk: string, stream: OutputStream) => void;
  /** Time between SIGINT, SIGTERM and SIGKILL when stopping the group. Default 2000. */
  killGraceMs?: number;
  /** Open a fourth pipe (fd 3) for the child to report on, read into `statusOutput` (bubblewrap's --json-status-fd). */
  statusPipe?: boolean;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in arrival order. */
  output: string;
  timedOut: boolean;
  idleTimedOut: boolean;
  cancelled: boolean;
  /** Set when the process could not be started at all; nothing ran. */
  spawnError?: string;
  /** Why it could not start, as the system said it (ENOENT: no such program, EACCES…); absent when the working directory was the problem. */
  spawnErrorCode?: string;
  durationMs: number;
  /** What the child wrote to its status pipe (with `statusPipe`). */
  statusOutput?: string;
  /** The sandbox around the command could not start, so nothing ran: why (set by a confining launcher). */
  sandboxFailure?: string;
  /** Set by a confining launcher: the hosts the command could reach (`host:port`), and those it asked for and was refused. */
  sandbox?: { hosts: string[]; blocked: string[]; hostsSetting: string };
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;
/** When the leader exited but its pipes stay open (a stuck descendant), stop waiting after this. */
const CLOSE_WAIT_AFTER_EXIT_MS = 1000;

type StopReason = 'timeout' | 'idle' | 'cancelled';

/**
 * Runs a command as the leader of its own process group, so that stopping it also stops
 * everything it started (a shell's children, an agent's tools). Never rejects: a command
 * that cannot start resolves with `spawnError`.
 */
export async function runProcess(opts: RunProcessOptions): Promise<ProcessResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  const notRun = (fields: Partial<ProcessResult>): ProcessResult => ({
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    output: '',
    timedOut: false,
    idleTimedOut: false,
    cancelled: false,
    durationMs: elapsed(),
    ...fields,
  });

  if (opts.signal?.aborted) return notRun({ cancelled: true });
  const cwdProblem = checkDirectory(opts.cwd);
  if (cwdProblem) return notRun({ spawnError: `cannot run ${opts.command}: ${cwdProblem}` });

  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...(opts.statusPipe ? (['pipe'] as const) : [])],
    windowsHide: true,
  });
  if (child.pid === undefined) {
    const [err] = (await once(child, 'error')) as [NodeJS.ErrnoException];
    return notRun({ spawnError: describeSpawnError(opts.command, err), ...(err.code ? { spawnErrorCode: err.code } : {}) });
  }
  const pid = child.pid;
  child.on('error', () => {}); // later errors (a failed kill) are handled by the group logic
  trackLiveGroup(pid, opts.cwd);

  const maxBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const graceMs = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const stdout = new CappedOutput(maxBytes);
  const stderr = new CappedOutput(maxBytes);
  const output = new CappedOutput(maxBytes);

  let stopReason: StopReason | undefined;
  let stopping: Promise<void> | undefined;
  let exited = false;
  const stop = (reason: StopReason) => {
    if (stopReason !== undefined || exited) return;
    stopReason = reason;
    stopping = killProcessGroup(pid, graceMs);
  };

  let idleTimer: NodeJS.Timeout | undefined;
  const armIdleTimer = () => {
    // Output still read after the exit must not arm a timer nobody clears: it would keep the process alive.
    if (opts.idleTimeoutMs === undefined || exited) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop('idle'), opts.idleTimeoutMs);
  };
  armIdleTimer();
  const timeoutTimer = opts.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), opts.timeoutMs);
  const onAbort = () => stop('cancelled');
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const listen = (stream: NodeJS.ReadableStream | null, name: OutputStream, capped: CappedOutput) => {
    if (!stream) return;
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      capped.append(chunk);
      output.append(chunk);
      armIdleTimer();
      const text = decoder.write(chunk);
      if (text) opts.onOutput?.(text, name);
    });
  };
  listen(child.stdout, 'stdout', stdout);
  listen(child.stderr, 'stderr', stderr);
  let statusOutput = '';
  const statusStream = opts.statusPipe ? (child.stdio[3] as NodeJS.ReadableStream | null) : null;
  statusStream?.on('data', (chunk: Buffer) => {
    statusOutput += chunk.toString('utf8');
  });

  if (child.stdin) {
    child.stdin.on('error', () => {}); // EPIPE when the child exits without reading its input
    if (typeof opts.input === 'string') child.stdin.end(opts.input);
    // A child that exits first ends the pipeline with EPIPE: what it did not read was not for it.
    else if (opts.input) pipeline(Readable.from(opts.input), child.stdin).catch(() => undefined);
  }

  // Plain listeners rather than events.once, which would reject on a late 'error' event.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const [exitCode, exitSignal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, sig) => resolve([code, sig])),
  );
  exited = true;
  clearTimeout(idleTimer);
  clearTimeout(timeoutTimer);
  opts.signal?.removeEventListener('abort', onAbort);

  // Descendants must not outlive the command: they would keep writing into the worktree.
  const sweeping = stopping ?? (isProcessGroupAlive(pid) ? signalGroupInTurn(pid, graceMs, ['SIGTERM', 'SIGKILL']) : undefined);
  await sweeping;
  const closeGuard = setTimeout(() => {
    child.stdout?.destroy();
    child.stderr?.destroy();
    (statusStream as { destroy?: () => void } | null)?.destroy?.();
  }, CLOSE_WAIT_AFTER_EXIT_MS);
  await closed;
  clearTimeout(closeGuard);
  untrackLiveGroup(pid);

  return {
    exitCode,
    signal: exitSignal,
    stdout: stdout.toString(),
    stderr: stderr.toString(),
    output: output.toString(),
    timedOut: stopReason === 'timeout',
    idleTimedOut: stopReason === 'idle',
    cancelled: stopReason === 'cancelled',
    durationMs: elapsed(),
    ...(opts.statusPipe ? { statusOutput } : {}),
  };
}

function checkDirectory(cwd: string): string | undefined {
  try {
    return statSync(cwd).isDirectory() ? undefined : `working directory ${cwd} is not a directory`;
  } catch {
    return `working directory ${cwd} does not exist`;
  }
}

function describeSpawnError(command: string, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return `\`${command}\` was not found — is it installed and on PATH?`;
    case 'EACCES':
      return `\`${command}\` is not executable (permission denied)`;
    default:
      return `\`${command}\` could not be started: ${err.message}`;
  }
}

// Children lead their own groups, so they would survive this process. When it exits (even
// through process.exit), kill what is still running rather than leave agents editing files.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackLiveGroup(pgid: number, cwd: string): void {
  liveGroups.add(pgid);
  childRegistry.track(pgid, cwd);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function untrackLiveGroup(pgid: number): void {
  liveGroups.delete(pgid);
  childRegistry.untrack(pgid);
}
