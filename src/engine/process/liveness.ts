import { processTable } from './processTable';

/**
 * Whether a process or a process group still has a living member. `kill(pid, 0)` alone is
 * not enough: it also succeeds for zombies, and where PID 1 is not a reaping init (many
 * containers) a killed orphan stays a zombie for seconds.
 */
export function isProcessAlive(pid: number): boolean {
  return processTable.isAlive(pid);
}

export function isProcessGroupAlive(pgid: number): boolean {
  return processTable.isGroupAlive(pgid);
}
