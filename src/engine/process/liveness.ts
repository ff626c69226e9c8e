import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a process or a process group still has a living member. `kill(pid, 0)` alone is
 * not enough: it also succeeds for zombies, and where PID 1 is not a reaping init (many
 * containers) a killed orphan stays a zombie for seconds. On Linux, /proc tells them apart.
 */
export function isProcessAlive(pid: number): boolean {
  if (!signalZero(pid)) return false;
  const state = readProcState(pid);
  return state === undefined ? true : state.state !== 'Z' && state.state !== 'X';
}

export function isProcessGroupAlive(pgid: number): boolean {
  if (!signalZero(-pgid)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true; // no /proc (macOS): trust the signal, the system reaps orphans promptly there
  }
  return entries.some((name) => {
    if (!/^\d+$/.test(name)) return false;
    const state = readProcState(Number(name));
    return state !== undefined && state.pgrp === pgid && state.state !== 'Z' && state.state !== 'X';
  });
}

function signalZero(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readProcState(pid: number): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …"; comm may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}
