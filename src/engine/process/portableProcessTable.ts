import { execFileSync } from 'node:child_process';
import type { ProcessTable, RunningProcess } from './processTable';
import { signalZero } from './signalZero';

/**
 * Asks `ps`, which macOS and Linux (procps) both have with these columns. Each question starts
 * a `ps`, some milliseconds: slower than /proc, so Linux uses /proc unless told otherwise.
 */
export const portableProcessTable: ProcessTable = {
  name: 'portable',
  isAlive: (pid) => signalZero(pid) && isRunningState(ps(['-o', 'stat=', '-p', String(pid)]).trim()),
  isGroupAlive: (pgid) =>
    signalZero(-pgid) &&
    rows(ps(['-A', '-o', 'pgid=,stat='])).some(([group, state]) => Number(group) === pgid && isRunningState(state)),
  startTime,
  withEnvironmentEntry(entry) {
    const found: RunningProcess[] = [];
    for (const [pid, state, ...commandAndEnvironment] of rows(ps(withEnvironment(['pid=,stat=,command='])))) {
      const n = Number(pid);
      if (n === process.pid || !isRunningState(state) || !commandAndEnvironment.includes(entry)) continue;
      const startedAt = startTime(n);
      if (startedAt !== undefined) found.push({ pid: n, startedAt });
    }
    return found;
  },
};

/** The start to the second: another process given our pid within that second would pass for ours. */
function startTime(pid: number): string | undefined {
  return ps(['-o', 'lstart=', '-p', String(pid)]).trim() || undefined;
}

function isRunningState(state: string | undefined): boolean {
  return state !== undefined && state !== '' && !state.startsWith('Z');
}

/** Every process, wide, its environment appended to its command line (of our own processes only). */
function withEnvironment(columns: string[]): string[] {
  // BSD ps spells "show the environment" -E (its -e means all processes); procps only knows the BSD-style `e`.
  return process.platform === 'darwin' ? ['-A', '-E', '-ww', '-o', ...columns] : ['axeww', '-o', ...columns];
}

/** ps's output, empty when it selected nothing (it then exits 1). C locale: `lstart` must read the same every time. */
function ps(args: string[]): string {
  try {
    return execFileSync('ps', args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (err) {
    return (err as { stdout?: string }).stdout ?? '';
  }
}

function rows(output: string): string[][] {
  return output
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[0] !== '');
}
