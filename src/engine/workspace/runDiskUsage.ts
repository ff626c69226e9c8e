import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunState } from '../domain/runState';
import { measureDiskUsage, NO_DISK_USAGE, type DiskUsage } from './diskUsage';
import { runWorktreeDir } from './worktreeRoot';

/** A measurement is trusted this long while the run's folder looks the same (files edited deep inside do not show in it). */
const FRESH_MS = 60_000;

interface Cached {
  signature: string;
  at: number;
  usage: DiskUsage;
}

/**
 * What a run's worktrees take on disk (they share the repository's object store, so that is what
 * the run itself adds). Kept per folder and measured again only when a worktree was added or
 * removed (the folder's and each worktree's mtime changed) or a minute has passed, so a list of
 * runs refreshed often stays cheap. A run whose worktrees are gone costs one existsSync.
 */
export class RunDiskUsage {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly now: () => number = Date.now) {}

  async of(repoRoot: string, state: Pick<RunState, 'runId' | 'config'>): Promise<DiskUsage> {
    const dir = runWorktreeDir(repoRoot, state.runId, state.config.worktree?.root);
    if (!existsSync(dir)) {
      this.cache.delete(dir);
      return NO_DISK_USAGE;
    }
    const signature = folderSignature(dir);
    const cached = this.cache.get(dir);
    if (cached && cached.signature === signature && this.now() - cached.at < FRESH_MS) return cached.usage;
    const usage = await measureDiskUsage(dir);
    this.cache.set(dir, { signature, at: this.now(), usage });
    return usage;
  }
}

/** The folder's entries and their mtimes: changes when a worktree is added, removed or recycled. */
function folderSignature(dir: string): string {
  try {
    const names = readdirSync(dir).sort();
    return [statSync(dir).mtimeMs, ...names.map((n) => `${n}:${statSync(join(dir, n)).mtimeMs}`)].join('|');
  } catch {
    return '';
  }
}
