import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessGroupAlive } from './liveness';

const POLL_MS = 25;
/** After SIGKILL the kernel needs a moment; wait so callers can count on "nothing left". */
const AFTER_KILL_WAIT_MS = 1000;

/**
 * Stops every process in the group led by `pgid`: SIGINT (agents save their state and exit),
 * then SIGTERM, then SIGKILL, each after `graceMs` if someone is still alive. Resolves when
 * the group is gone or SIGKILL has been sent and given a moment.
 */
export function killProcessGroup(pgid: number, graceMs = 2000): Promise<void> {
  return signalGroupInTurn(pgid, graceMs, ['SIGINT', 'SIGTERM', 'SIGKILL']);
}

export async function signalGroupInTurn(pgid: number, graceMs: number, signals: NodeJS.Signals[]): Promise<void> {
  for (const [i, sig] of signals.entries()) {
    if (!isProcessGroupAlive(pgid)) return;
    try {
      process.kill(-pgid, sig);
    } catch {
      return; // ESRCH: gone in the meantime
    }
    const last = i === signals.length - 1;
    await waitUntilGone(pgid, last ? AFTER_KILL_WAIT_MS : graceMs);
  }
}

async function waitUntilGone(pgid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isProcessGroupAlive(pgid)) return;
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
}
