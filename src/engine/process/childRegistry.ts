import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isProcessGroupAlive } from './liveness';
import { signalGroupInTurn } from './killProcessGroup';

interface TrackedGroup {
  pgid: number;
  /** Kernel start time of the leader, so a recycled pid is never mistaken for ours. */
  startedAt: string;
}

/**
 * Remembers, in a file, the process groups this engine started (agents and gates). They run
 * in their own groups so they can be stopped as a whole — which also means they outlive an
 * engine killed with SIGKILL. The next engine on the workspace reads the file and stops
 * what is left, before a resumed task recreates the worktree those processes write into.
 */
class ChildRegistry {
  private file: string | undefined;
  private readonly groups = new Map<number, TrackedGroup>();

  /** From now on, keep the tracked groups in `file`. */
  persistTo(file: string | undefined): void {
    this.file = file;
    this.save();
  }

  track(pgid: number): void {
    this.groups.set(pgid, { pgid, startedAt: processStartTime(pgid) ?? '' });
    this.save();
  }

  untrack(pgid: number): void {
    if (this.groups.delete(pgid)) this.save();
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ owner: process.pid, groups: [...this.groups.values()] }));
    renameSync(tmp, this.file);
  }
}

export const childRegistry = new ChildRegistry();

/**
 * Stops the process groups a previous engine left running (it died without cleaning up).
 * Returns how many were stopped. Only groups whose leader is provably the same process
 * (same kernel start time) are signalled.
 */
export async function stopLeftoverProcessGroups(file: string, graceMs = 1000): Promise<number> {
  let recorded: { groups?: TrackedGroup[] };
  try {
    recorded = JSON.parse(readFileSync(file, 'utf8')) as { groups?: TrackedGroup[] };
  } catch {
    return 0;
  }
  const leftovers = (recorded.groups ?? []).filter(
    (g) => isProcessGroupAlive(g.pgid) && g.startedAt !== '' && processStartTime(g.pgid) === g.startedAt,
  );
  await Promise.all(leftovers.map((g) => signalGroupInTurn(g.pgid, graceMs, ['SIGTERM', 'SIGKILL'])));
  return leftovers.length;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks); undefined where /proc is missing. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
