import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import './testStateDir';

export interface TempRepo {
  /** Real path of the repository (symlinks such as macOS /tmp resolved). */
  dir: string;
  /** Runs git synchronously in `dir` and returns stdout without its final newline; throws on failure. */
  git(args: string[]): string;
  cleanup(): void;
}

// Fixed identity and no signing, so tests behave the same on any machine; GIT_* from the outer
// environment (e.g. GIT_DIR when run from a hook) must not leak into the temp repository.
const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@localhost', '-c', 'commit.gpgsign=false'];

function testEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^GIT_/i.test(k)) env[k] = v;
  return { ...env, LC_ALL: 'C' };
}

/**
 * A real git repository in a temp folder on branch `main`. By default it has one commit with
 * `files` (or a README); `commit: false` leaves it without commits (files written, untracked).
 */
export function makeTempRepo(options: { files?: Record<string, string>; commit?: boolean } = {}): TempRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-test-')));
  const git = (args: string[]): string =>
    execFileSync('git', [...IDENTITY, ...args], { cwd: dir, env: testEnv(), encoding: 'utf8', stdio: 'pipe' }).replace(
      /\n$/,
      '',
    );
  git(['-c', 'init.defaultBranch=main', 'init', '-q']);
  // Gits older than 2.28 ignore init.defaultBranch.
  if (readFileSync(join(dir, '.git', 'HEAD'), 'utf8').trim() !== 'ref: refs/heads/main') {
    git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
  }
  const files = options.files ?? { 'README.md': '# temp repo\n' };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  if (options.commit !== false) {
    git(['add', '-A']);
    git(['commit', '-q', '--allow-empty', '-m', 'initial']);
  }
  return { dir, git, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
