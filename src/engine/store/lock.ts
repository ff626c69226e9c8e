import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { parseJsonAs } from '../io/parseJsonAs';
import { isProcessAlive } from '../process/liveness';
import { TaskloomError } from '../domain/taskloomError';

/** Who holds `.taskloom/lock`. */
export interface LockOwner {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
}

export class LockHeldError extends TaskloomError {
  constructor(
    readonly lockFile: string,
    readonly owner: LockOwner,
  ) {
    const elsewhere = owner.host === os.hostname() ? '' : ` on host "${owner.host}"`;
    super(
      'busy',
      `Another Taskloom process (pid ${owner.pid}${elsewhere}, "${owner.command}", since ${formatSince(owner.startedAt)}) is driving this workspace`,
      'Wait for it to finish or stop it; read-only commands (runs, trace) still work.' +
        (elsewhere ? ` Taskloom cannot check a process on another host: if it is gone, delete ${lockFile}.` : ''),
    );
    this.name = 'LockHeldError';
  }
}

const MAX_TAKEOVER_TRIES = 5;

/**
 * `.taskloom/lock`: one process drives a workspace at a time (lowdb has no cross-process
 * locking, and two writers would interleave seqs in a run's log). A lock whose process is
 * gone is taken over with a warning.
 */
export class WorkspaceLock {
  private released = false;
  private readonly onExit = (): void => this.release();

  private constructor(
    readonly file: string,
    private readonly owner: LockOwner,
    /** Set when a stale lock was taken over. */
    readonly warnings: string[],
  ) {
    // A process that ends without closing its store must not leave a lock that looks held.
    process.on('exit', this.onExit);
  }

  static acquire(taskloomDir: string, options: { command: string }): WorkspaceLock {
    fs.mkdirSync(taskloomDir, { recursive: true });
    const file = path.join(taskloomDir, 'lock');
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), command: options.command, startedAt: new Date().toISOString() };
    const warnings: string[] = [];
    for (let tries = 0; tries < MAX_TAKEOVER_TRIES; tries += 1) {
      if (tryCreate(file, owner)) return new WorkspaceLock(file, owner, warnings);
      const text = readText(file);
      if (text === undefined) continue; // Released between our two calls: try again.
      const holder = parseOwner(text);
      if (holder && isAlive(holder)) throw new LockHeldError(file, holder);
      // Only remove what we judged stale; a lock that changed meanwhile belongs to someone new.
      if (readText(file) !== text) continue;
      fs.rmSync(file, { force: true });
      warnings.push(
        holder
          ? `Took over a stale lock from pid ${holder.pid} ("${holder.command}", since ${formatSince(holder.startedAt)}), which is no longer running`
          : 'Took over an unreadable lock file left by an earlier Taskloom process',
      );
    }
    throw new Error(`Could not acquire ${file}: other processes keep taking it`);
  }

  /** Removes the lock file if it is still ours. Safe to call more than once. */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.off('exit', this.onExit);
    const holder = parseOwner(readText(this.file) ?? '');
    const ours =
      holder !== undefined && holder.pid === this.owner.pid && holder.host === this.owner.host && holder.startedAt === this.owner.startedAt;
    if (ours) fs.rmSync(this.file, { force: true });
  }
}

/**
 * The live process holding the workspace's lock, if any, without taking it: a reader uses it
 * to say who is driving the workspace. A lock whose process is gone counts as free.
 */
export function liveLockOwner(taskloomDir: string): LockOwner | undefined {
  const holder = parseOwner(readText(path.join(taskloomDir, 'lock')) ?? '');
  return holder && isAlive(holder) ? holder : undefined;
}

/** `"taskloom run" (pid 123, since 10:04:05)`, for a person. */
export function describeLockOwner(owner: LockOwner): string {
  const elsewhere = owner.host === os.hostname() ? '' : ` on host "${owner.host}"`;
  return `"${owner.command}" (pid ${owner.pid}${elsewhere}, since ${formatSince(owner.startedAt)})`;
}

function tryCreate(file: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The lock file as `tryCreate` writes it; a file of another shape is nobody's lock (stale). */
const lockOwnerSchema = z.object({ pid: z.number().int().positive(), host: z.string(), command: z.string(), startedAt: z.string() }) satisfies z.ZodType<LockOwner>;

function parseOwner(text: string): LockOwner | undefined {
  return parseJsonAs(lockOwnerSchema, text);
}

/** A process on another host cannot be checked, so it counts as alive; a zombie does not. */
function isAlive(owner: LockOwner): boolean {
  return owner.host !== os.hostname() || isProcessAlive(owner.pid);
}

function formatSince(startedAt: string): string {
  const date = new Date(startedAt);
  if (Number.isNaN(date.getTime())) return startedAt;
  const pad = (n: number): string => String(n).padStart(2, '0');
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  const today = new Date();
  const sameDay =
    date.getFullYear() === today.getFullYear() && date.getMonth() === today.getMonth() && date.getDate() === today.getDate();
  return sameDay ? time : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${time}`;
}
