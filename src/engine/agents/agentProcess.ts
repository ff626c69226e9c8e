import { clipEnd } from '../text/clip';
import { CALL_MARKER_VAR, stopMarkedProcesses } from '../process/markedProcesses';
import { LineSplitter } from '../process/lineSplitter';
import type { LaunchOptions, ProcessLauncher } from '../process/launcher';
import type { ProcessResult } from '../process/processGroup';
import type { RunnerActivity } from './runner';
import { counted } from '../text/counted';

const MAX_STATUS_CHARS = 400;

/**
 * A call may run this many idle timeouts (the stuck threshold) in all, output or not: an hour
 * at the default 300 s. An agent still printing after that is looping, and every line of it
 * resets the idle watchdog, so only this limit ends it.
 */
export const CALL_LIMIT_IDLE_MULTIPLE = 12;

/** The longest one call may run (see CALL_LIMIT_IDLE_MULTIPLE). */
export const callLimitMs = (idleTimeoutMs: number): number => CALL_LIMIT_IDLE_MULTIPLE * idleTimeoutMs;

/** Why a call that showed no activity for the stuck threshold was stopped, for the task's reason. */
export const stuckMessage = (agent: string, idleTimeoutMs: number): string => `no activity for ${idleTimeoutMs} ms; ${agent} was stopped`;

/** Why a call that ran into its limit was stopped, for the task's reason. */
export const callLimitMessage = (agent: string, limitMs: number): string =>
  `${agent} did not finish within ${Math.round(limitMs / 100) / 10} s, the limit for one call (12 × the stuck threshold), and was stopped`;

export interface AgentProcessOptions extends Omit<LaunchOptions, 'onOutput' | 'env' | 'idleTimeoutMs'> {
  /** Starts the process: the call's own launcher (RunnerInput.launch). */
  launch: ProcessLauncher;
  env: NodeJS.ProcessEnv;
  idleTimeoutMs: number;
  /** Put in the environment of the call's processes, so those that leave its group are found after it. */
  marker: string;
  /** Named in the activity that reports processes stopped after the call. */
  agentName: string;
  onStdoutLine(line: string): void;
  emit(activity: RunnerActivity): void;
}

/**
 * Runs one call of an agent CLI: stdout line by line to the caller's parser, stderr lines as
 * status activity, and afterwards stops whatever of the call escaped its process group (agents
 * run tools with setsid; a user's script may nohup a helper). Unless told otherwise, a call is
 * stopped after callLimitMs, however busy it looks (`timedOut` in the result).
 */
export async function runAgentProcess(options: AgentProcessOptions): Promise<ProcessResult> {
  const { marker, agentName, onStdoutLine, emit, env, launch, ...processOptions } = options;
  const stdout = new LineSplitter();
  const stderr = new LineSplitter();
  const onStderrLine = (line: string) => {
    if (line.trim() !== '') emit({ kind: 'status', message: clipEnd(line, MAX_STATUS_CHARS) });
  };
  try {
    const result = await launch({
      timeoutMs: callLimitMs(processOptions.idleTimeoutMs),
      ...processOptions,
      env: { ...env, [CALL_MARKER_VAR]: marker },
      onOutput: (chunk, stream) => {
        if (stream === 'stdout') stdout.push(chunk).forEach(onStdoutLine);
        else stderr.push(chunk).forEach(onStderrLine);
      },
    });
    stdout.end().forEach(onStdoutLine);
    stderr.end().forEach(onStderrLine);
    return result;
  } finally {
    const stray = await stopMarkedProcesses(marker, options.killGraceMs ?? 1000);
    if (stray > 0) emit({ kind: 'status', message: `stopped ${counted(stray, 'process', 'processes')} ${agentName} left running` });
  }
}

/** Activity goes to the listener; a listener's failure is not the agent's. */
export function activityEmitter(onActivity?: (activity: RunnerActivity) => void): (activity: RunnerActivity) => void {
  return (activity) => {
    try {
      onActivity?.(activity);
    } catch {
      // ignored: see above
    }
  };
}
