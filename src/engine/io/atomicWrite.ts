import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The one atomic write of the store: a temp file beside the target (named by pid and a random
 * part, so two writers, in this process or another, never share one), fsync'ed, renamed over the
 * target, then the directory fsync'ed so the rename itself survives a crash. A reader sees the old
 * file or the new one, never half of either. `survivesProcessOnly` leaves out both fsyncs, for a
 * file that only has to outlive this process, not the machine (the page cache outlives a killed
 * process; the rename still keeps readers from half a file).
 */
export function writeFileAtomic(file: string, content: string, options: { survivesProcessOnly?: boolean } = {}): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(temp, 'w');
    try {
      fs.writeFileSync(fd, content);
      if (!options.survivesProcessOnly) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  if (!options.survivesProcessOnly) fsyncDirectory(dir);
}

/** Makes a directory's entries (a new or renamed file in it) durable. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory (Windows); the file itself is still fsync'ed.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
