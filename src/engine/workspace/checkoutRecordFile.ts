import { statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../io/atomicWrite';
import { FULL_HASH, worktreeGitDir } from './worktreeFiles';

// A gate's record of its checkout, kept while the gate runs in the checkout's own git directory
// (out of the gate's reach when it is confined), so that a gate a crash or a kill interrupted is
// still cleaned up after: by the next gate in the same checkout.

const RECORD_FILE = 'taskloom-gate-record.json';
/** A record lists folders, not their files: far below this. A bigger file is not ours. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** What is kept of a CheckoutRecord (see leavingNoTrace.ts). */
export interface SavedRecord {
  head: string;
  changedBefore: string[];
  untrackedBefore: string[];
}

const savedRecordSchema = z.strictObject({
  head: z.string().regex(FULL_HASH),
  changedBefore: z.array(z.string()),
  untrackedBefore: z.array(z.string()),
});

export function saveRecord(dir: string, record: SavedRecord): void {
  writeFileAtomic(join(worktreeGitDir(dir), RECORD_FILE), JSON.stringify(record), { survivesProcessOnly: true });
}

export async function forgetRecord(dir: string): Promise<void> {
  await rm(join(worktreeGitDir(dir), RECORD_FILE), { force: true });
}

/** The record a gate left when it never finished, or undefined (none, or not one this release wrote). */
export async function interruptedRecord(dir: string): Promise<SavedRecord | undefined> {
  const file = join(worktreeGitDir(dir), RECORD_FILE);
  try {
    if (statSync(file).size > MAX_RECORD_BYTES) return undefined;
    const parsed = savedRecordSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
