import { readdirSync, readFileSync } from 'node:fs';
import type { ProcessTable, RunningProcess } from './processTable';
import { signalZero } from './signalZero';

interface Stat {
  state: string;
  pgrp: number;
  /** Field 22, the start time in clock ticks since boot. */
  startedAt: string;
}

/** Reads /proc: one file per question, no child process, so it is cheap enough to poll. */
export const linuxProcessTable: ProcessTable = {
  name: 'linux',
  isAlive: (pid) => signalZero(pid) && isRunning(readStat(pid)),
  isGroupAlive: (pgid) => signalZero(-pgid) && pids().some((pid) => {
    const stat = readStat(pid);
    return stat?.pgrp === pgid && isRunning(stat);
  }),
  startTime: (pid) => readStat(pid)?.startedAt,
  withEnvironmentEntry(entry) {
    const found: RunningProcess[] = [];
    for (const pid of pids()) {
      if (pid === process.pid || !readEnvironment(pid).includes(entry)) continue;
      const stat = readStat(pid);
      if (stat && isRunning(stat)) found.push({ pid, startedAt: stat.startedAt });
    }
    return found;
  },
};

function isRunning(stat: Stat | undefined): boolean {
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Parses /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; undefined once the process is gone. */
function readStat(pid: number): Stat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may itself contain spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgrp: Number(fields[2]), startedAt: fields[19] ?? '' };
}

function readEnvironment(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    return []; // gone, or not ours to read
  }
}
