import { randomBytes } from 'node:crypto';

/** Sortable by time, safe in branch names and paths: `20261129-071502-a1b2`. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}
