import fs from 'node:fs';
import { TaskloomError } from '../domain/taskloomError';

/**
 * `.taskloom` must be a folder (or not there yet: Taskloom makes it). Something else in its place,
 * such as a file of that name, is setup the user can fix, not a bug in Taskloom: it is reported
 * as missing setup, naming the path, before anything tries to read or write inside it.
 */
export function assertTaskloomFolder(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat || stat.isDirectory()) return;
  throw new TaskloomError(
    'needs_environment',
    `${dir} is not a folder: Taskloom keeps its runs in a folder of that name`,
    'Move or rename it, then try again; Taskloom makes the folder itself.',
  );
}
