import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A `git` for a child process's PATH that runs the real git, except the first command whose
 * arguments match `pattern`, a POSIX extended regular expression (bash's `=~`), once a path
 * matching the glob `after` exists if one is given: that one
 * marks itself blocked and waits until a signal ends it, as a Ctrl-C in the terminal ends the
 * git a Taskloom process is running. A test thereby stops the CLI exactly while git does one thing.
 */
export interface BlockingGit {
  /** Environment for the child: PATH leads to the wrapper. */
  env: NodeJS.ProcessEnv;
  /** Resolves once the matching git command has started and is blocked. */
  blocked(): Promise<void>;
  cleanup(): void;
}

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

export function blockingGit(pattern: string, after?: string): BlockingGit {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-git-'));
  const marker = join(dir, 'blocked');
  const script = [
    '#!/bin/bash',
    `if [[ ! -e "$BLOCK_MARKER" && "$*" =~ $BLOCK_PATTERN ]] && { [[ -z "$BLOCK_AFTER" ]] || compgen -G "$BLOCK_AFTER" >/dev/null; }; then`,
    '  : > "$BLOCK_MARKER"',
    '  while :; do sleep 1; done',
    'fi',
    'exec "$REAL_GIT" "$@"',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'git'), script);
  chmodSync(join(dir, 'git'), 0o755);
  const env = {
    PATH: `${dir}${delimiter}${process.env.PATH ?? ''}`,
    REAL_GIT: realGit,
    BLOCK_MARKER: marker,
    BLOCK_PATTERN: pattern,
    BLOCK_AFTER: after ?? '',
  };
  return {
    env,
    async blocked() {
      while (!existsSync(marker)) await sleep(20);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
