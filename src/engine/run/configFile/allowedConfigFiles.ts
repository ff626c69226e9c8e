import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../runProvenance';
import type { ConfigFile } from './readConfigFile';

/**
 * Which taskloom.json files this user allowed on this machine: one line per allowing in
 * `<state dir>/allowed-config-files.jsonl` (beside created-runs.jsonl, outside every repository, so
 * a repository cannot allow its own file), with the repository's real path and the fingerprint of
 * the keys that needed allowing. A change to any of them is another fingerprint, asked about again.
 * Lines are only appended, so concurrent Taskloom processes never lose each other's.
 */
const FILE_NAME = 'allowed-config-files.jsonl';

interface AllowedEntry {
  repoRoot: string;
  fingerprint: string;
}

export function isConfigFileAllowed(repoRoot: string, file: ConfigFile, env: NodeJS.ProcessEnv = process.env): boolean {
  const path = join(stateDir(env), FILE_NAME);
  if (!existsSync(path)) return false;
  const root = realRoot(repoRoot);
  return readFileSync(path, 'utf8')
    .split('\n')
    .some((line) => {
      try {
        const entry = JSON.parse(line) as Partial<AllowedEntry>;
        return entry.repoRoot === root && entry.fingerprint === file.fingerprint;
      } catch {
        return false;
      }
    });
}

/** Records the allowing; a failure to write is the caller's to report (the file would be asked about again). */
export function recordAllowedConfigFile(repoRoot: string, file: ConfigFile, env: NodeJS.ProcessEnv = process.env): void {
  const dir = stateDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry: AllowedEntry = { repoRoot: realRoot(repoRoot), fingerprint: file.fingerprint };
  // One line, one append (O_APPEND): atomic for a write this small on a local file system.
  appendFileSync(join(dir, FILE_NAME), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}

function realRoot(repoRoot: string): string {
  try {
    return realpathSync(repoRoot);
  } catch {
    return repoRoot;
  }
}
