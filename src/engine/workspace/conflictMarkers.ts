import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A line git writes around a conflict: `<<<<<<< ours`, `=======`, `>>>>>>> theirs` (and `|||||||` with diff3). */
const MARKER = /^(<{7}|>{7}|\|{7})( |$)|^={7}$/;

/** The lines of `files` (relative to `dir`) that still hold conflict markers, as `file:line: text`. */
export function leftoverConflictMarkers(dir: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const path = join(dir, file);
    if (!existsSync(path) || !statSync(path).isFile()) continue;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (MARKER.test(line)) found.push(`${file}:${i + 1}: ${line}`);
      });
  }
  return found;
}
