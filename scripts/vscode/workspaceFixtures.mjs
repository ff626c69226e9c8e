// Workspaces for the in-VS-Code test sessions: real git repositories made fresh for each
// session from a folder under test/vscode/fixtures/, never a mocked git.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const fixturesDir = join(import.meta.dirname, '..', '..', 'test', 'vscode', 'fixtures');

// A fixed identity and no signing, so the repository looks the same on any machine; GIT_* from
// the outer environment (GIT_DIR from a hook, GIT_SSL_CAINFO) must not leak into it.
function git(cwd, args) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^GIT_/i.test(k)));
  execFileSync(
    'git',
    ['-c', 'user.name=Taskloom Test', '-c', 'user.email=test@localhost', '-c', 'commit.gpgsign=false', ...args],
    { cwd, env: { ...env, LC_ALL: 'C' }, stdio: 'pipe' },
  );
}

/**
 * Copies test/vscode/fixtures/<fixture> to <parentDir>/<fixture> (so the window title names
 * the fixture) and makes it a git repository on `main` with one commit holding every file.
 * Returns the repository's path.
 */
export function gitRepoFromFixture(fixture, parentDir) {
  const dir = join(parentDir, fixture);
  mkdirSync(dir, { recursive: true });
  cpSync(join(fixturesDir, fixture), dir, { recursive: true });
  git(dir, ['-c', 'init.defaultBranch=main', 'init', '-q']);
  git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/main']); // gits older than 2.28 ignore init.defaultBranch
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  return dir;
}
