import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../io/atomicWrite';
import { isProcessGroupAlive } from './liveness';
import { signalGroupInTurn } from './killProcessGroup';
import { processTable } from './processTable';

interface TrackedGroup {
  pgid: number;
  /** Start time of the leader, so a recycled pid is never mistaken for ours. */
  startedAt: string;
}

interface LiveGroup extends TrackedGroup {
  /** Where the group was started: it belongs to the workspace whose root holds this folder. */
  cwd: string;
}

/**
 * Remembers, in a file per workspace, the process groups this engine started (agents and
 * gates). They run in their own groups so they can be stopped as a whole — which also means
 * they outlive an engine killed with SIGKILL. The next engine on the workspace reads the file
 * and stops what is left, before a resumed task recreates the worktree those processes write
 * into. One process may drive several workspaces at once (the engine server), so each group
 * is written to the file of the workspace it runs in.
 */
class ChildRegistry {
  /** Workspace root → its registry file. */
  private readonly files = new Map<string, string>();
  private readonly groups = new Map<number, LiveGroup>();

  /** From now on, keep the groups started inside `root` in `file`; `undefined` stops it. */
  persistTo(root: string, file: string | undefined): void {
    if (file === undefined) {
      this.files.delete(root);
      return;
    }
    this.files.set(root, file);
    this.save(root, file);
  }

  track(pgid: number, cwd: string): void {
    this.groups.set(pgid, { pgid, cwd: resolve(cwd), startedAt: processTable.startTime(pgid) ?? '' });
    this.saveAll();
  }

  untrack(pgid: number): void {
    if (this.groups.delete(pgid)) this.saveAll();
  }

  /** This process started the group and it is still running: not a leftover of a dead engine. */
  isTracking(pgid: number): boolean {
    return this.groups.has(pgid);
  }

  private saveAll(): void {
    for (const [root, file] of this.files) this.save(root, file);
  }

  /**
   * A group started outside every registered workspace (a probe in a temp folder) is written to
   * every file: better stopped by whichever engine comes next than left running.
   */
  private save(root: string, file: string): void {
    const groups = [...this.groups.values()]
      .filter((g) => isInside(g.cwd, root) || ![...this.files.keys()].some((r) => isInside(g.cwd, r)))
      .map(({ pgid, startedAt }) => ({ pgid, startedAt }));
    // Not fsync'ed: what it lists dies with the machine, so only an engine killed on a running
    // machine leaves groups to stop, and the page cache keeps the file for the next one. An fsync
    // per agent or gate process started and ended cost 20-40 ms on a loaded disk (bench/childRegistryCost.ts).
    writeFileAtomic(file, JSON.stringify({ owner: process.pid, groups }), { survivesProcessOnly: true });
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export const childRegistry = new ChildRegistry();

/** The registry file as `save` writes it; its groups are what the next engine may signal. */
const registryFileSchema = z.object({
  groups: z.array(z.object({ pgid: z.number().int().positive(), startedAt: z.string() }) satisfies z.ZodType<TrackedGroup>),
});

/**
 * Stops the process groups a previous engine left running (it died without cleaning up).
 * Returns how many were stopped. Only groups whose leader is provably the same process
 * (same kernel start time) are signalled, and never one this process is running itself.
 */
export async function stopLeftoverProcessGroups(file: string, graceMs = 1000): Promise<number> {
  let recorded: unknown;
  try {
    recorded = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
  // A file of another shape names no group to stop; `persistTo` writes it anew.
  const parsed = registryFileSchema.safeParse(recorded);
  if (!parsed.success) return 0;
  const leftovers = parsed.data.groups.filter(
    (g) =>
      !childRegistry.isTracking(g.pgid) &&
      isProcessGroupAlive(g.pgid) &&
      g.startedAt !== '' &&
      processTable.startTime(g.pgid) === g.startedAt,
  );
  await Promise.all(leftovers.map((g) => signalGroupInTurn(g.pgid, graceMs, ['SIGTERM', 'SIGKILL'])));
  return leftovers.length;
}
