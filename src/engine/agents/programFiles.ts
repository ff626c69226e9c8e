import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, sep } from 'node:path';
import { resolveExecutable } from '../process/findOnPath';
import { hostPortOfUrl } from '../sandbox/hostPort';

/**
 * The folder holding an agent's program, for a sandbox to show it read-only: for a Node package
 * (found through a `node_modules/.bin` link) the `node_modules` holding it, so that the platform
 * binaries of its optional dependencies come along; otherwise the folder of the real executable.
 */
export function programFolder(binary: string, path?: string): string[] {
  const found = resolveExecutable(binary, path);
  if (!found) return [];
  let real: string;
  try {
    real = realpathSync(found);
  } catch {
    return [];
  }
  const marker = `${sep}node_modules${sep}`;
  const at = real.lastIndexOf(marker);
  return [at >= 0 ? real.slice(0, at + marker.length - 1) : dirname(real)];
}

/** The home folder a process is given (its HOME, else this user's). */
export const homeOf = (env: NodeJS.ProcessEnv): string => env.HOME || homedir();

/** `host:port` of a base URL a variable names, else the defaults: where an agent's model API is. */
export function apiHosts(baseUrl: string | undefined, defaults: readonly string[]): string[] {
  const own = hostPortOfUrl(baseUrl);
  return own ? [`${own.host}:${own.port}`] : [...defaults];
}

