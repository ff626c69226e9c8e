import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Agents start processes outside their own process group: codex runs its tools and its shell
 * snapshot in new sessions (setsid), a user's script may `setsid`/`nohup` a helper. Stopping
 * the group does not reach them. So each call gets a unique marker in its environment, which
 * every descendant inherits, and after the call whatever still carries it is stopped
 * (SIGTERM, then SIGKILL). Linux only (reads /proc); elsewhere it does nothing.
 */
export const CALL_MARKER_VAR = 'TASKLOOM_AGENT_CALL';

export function newCallMarker(): string {
  return randomUUID();
}

/** How long to wait for SIGKILLed processes to be gone (they cannot resist it, only be slow). */
const SIGKILL_WAIT_MS = 2000;
const MAX_ROUNDS = 3;

interface Found {
  pid: number;
  startedAt: string;
}

/** Processes (other than this one) whose environment holds `CALL_MARKER_VAR=marker`. */
export function findMarkedProcesses(marker: string): Found[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = `${CALL_MARKER_VAR}=${marker}`;
  const found: Found[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!environ.split('\0').includes(needle)) continue;
    const state = readStat(pid);
    if (state && state.state !== 'Z' && state.state !== 'X') found.push({ pid, startedAt: state.startedAt });
  }
  return found;
}

/**
 * Stops every process still carrying the marker; resolves with how many there were. Scans
 * again after stopping, a few times, for children forked while their parents were stopped.
 */
export async function stopMarkedProcesses(marker: string, graceMs = 1000): Promise<number> {
  let stopped = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found = findMarkedProcesses(marker);
    if (found.length === 0) break;
    await stopAll(found, graceMs);
    stopped += found.length;
  }
  return stopped;
}

async function stopAll(found: Found[], graceMs: number): Promise<void> {
  const same = (p: Found) => {
    const state = readStat(p.pid);
    return state !== undefined && state.startedAt === p.startedAt && state.state !== 'Z' && state.state !== 'X';
  };
  const signal = (sig: NodeJS.Signals) => {
    for (const p of found) {
      if (!same(p)) continue;
      try {
        process.kill(p.pid, sig);
      } catch {
        // already gone
      }
    }
  };
  const waitGone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (found.some(same) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  };
  signal('SIGTERM');
  await waitGone(graceMs);
  if (found.some(same)) {
    signal('SIGKILL');
    await waitGone(SIGKILL_WAIT_MS);
  }
}

function readStat(pid: number): { state: string; startedAt: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startedAt: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}
