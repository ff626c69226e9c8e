import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The executable `name` as the shell would find it on `path`, or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** A configured binary: a path is checked as it is, a bare name is looked up on PATH. */
export function resolveExecutable(binary: string, path = process.env.PATH ?? ''): string | undefined {
  if (!binary.includes('/')) return findOnPath(binary, path);
  try {
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}
