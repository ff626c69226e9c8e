import { existsSync } from 'node:fs';
import { linuxProcessTable } from './linuxProcessTable';
import { portableProcessTable } from './portableProcessTable';

/** A process that is running now, and which incarnation of its pid it is. */
export interface RunningProcess {
  pid: number;
  startedAt: string;
}

/**
 * What the engine asks the operating system about processes, so that it can stop what it
 * started and nothing else. The signalling itself (`process.kill(-pgid)`) is POSIX and the
 * same everywhere; how to look at processes is not: Linux has /proc, macOS only `ps`.
 */
export interface ProcessTable {
  readonly name: 'linux' | 'portable';
  /** Running, and not a zombie: where PID 1 does not reap (many containers), a killed orphan stays one for seconds. */
  isAlive(pid: number): boolean;
  /** Some member of the process group is running (not a zombie). */
  isGroupAlive(pgid: number): boolean;
  /**
   * An opaque mark of when the process started, equal for the same process and different for
   * another one that was given the same pid later; undefined when there is no such process.
   */
  startTime(pid: number): string | undefined;
  /** Running processes other than this one whose environment holds `entry` (`NAME=value`). */
  withEnvironmentEntry(entry: string): RunningProcess[];
}

/** Set to `portable` to use `ps` even on Linux (tests of the macOS path run so). */
export const PROCESS_TABLE_VAR = 'TASKLOOM_PROCESS_TABLE';

export function chooseProcessTable(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, procMounted: boolean): ProcessTable {
  return platform === 'linux' && procMounted && env[PROCESS_TABLE_VAR] !== 'portable' ? linuxProcessTable : portableProcessTable;
}

export const processTable: ProcessTable = chooseProcessTable(process.platform, process.env, existsSync('/proc/self/stat'));
