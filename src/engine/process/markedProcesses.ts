import { randomUUID } from 'node:crypto';
import { processTable, type RunningProcess } from './processTable';

/**
 * Agents start processes outside their own process group: codex runs its tools and its shell
 * snapshot in new sessions (setsid), a user's script may `setsid`/`nohup` a helper. Stopping
 * the group does not reach them. So each call gets a unique marker in its environment, which
 * every descendant inherits, and after the call whatever still carries it is stopped
 * (SIGTERM, then SIGKILL). Where the process table is `ps` (macOS), it shows the environment
 * of our own processes only — which are all this needs.
 */
export const CALL_MARKER_VAR = 'TASKLOOM_AGENT_CALL';

export function newCallMarker(): string {
  return randomUUID();
}

/** How long to wait for SIGKILLed processes to be gone (they cannot resist it, only be slow). */
const SIGKILL_WAIT_MS = 2000;
const MAX_ROUNDS = 3;

/** Processes (other than this one) whose environment holds `CALL_MARKER_VAR=marker`. */
export function findMarkedProcesses(marker: string): RunningProcess[] {
  return processTable.withEnvironmentEntry(`${CALL_MARKER_VAR}=${marker}`);
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

async function stopAll(found: RunningProcess[], graceMs: number): Promise<void> {
  const same = (p: RunningProcess) => processTable.isAlive(p.pid) && processTable.startTime(p.pid) === p.startedAt;
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
