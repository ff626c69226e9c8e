import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { WorkspaceError } from '../../src/engine/workspace/errors';
import { cleanGitEnv, Git } from '../../src/engine/workspace/git';
import { ensureExcluded, gitVersion, inspectRepo } from '../../src/engine/workspace/repoInspector';
import { makeTempRepo } from '../helpers/tempRepo';

function tempRepo(t: TestContext, options?: Parameters<typeof makeTempRepo>[0]) {
  const repo = makeTempRepo(options);
  t.after(() => repo.cleanup());
  return repo;
}

async function workspaceError(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await promise.then(
    () => assert.fail('expected a WorkspaceError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkspaceError, `expected a WorkspaceError, got ${String(error)}`);
  return error;
}

test('inspectRepo describes a clean repository', async (t) => {
  const repo = tempRepo(t);
  mkdirSync(join(repo.dir, 'src'));
  repo.git(['config', 'user.name', 'Ada']);
  repo.git(['config', 'user.email', 'ada@example.com']);
  const info = await inspectRepo(join(repo.dir, 'src'));
  assert.deepEqual(info, {
    root: repo.dir,
    gitCommonDir: join(repo.dir, '.git'),
    headCommit: repo.git(['rev-parse', 'HEAD']),
    headRef: 'main',
    dirtyPaths: [],
    // The repository's own identity, which Taskloom commits as (test/integration/commitIdentity.test.ts covers the rest).
    identity: { source: 'user', signs: false, format: 'openpgp' },
  });
});

test('inspectRepo lists uncommitted paths but not .taskloom/', async (t) => {
  const repo = tempRepo(t, { files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
  writeFileSync(join(repo.dir, 'a.txt'), 'changed\n');
  writeFileSync(join(repo.dir, 'new file.txt'), 'new\n');
  repo.git(['mv', 'b.txt', 'renamed.txt']);
  mkdirSync(join(repo.dir, '.taskloom', 'runs'), { recursive: true });
  writeFileSync(join(repo.dir, '.taskloom', 'state.json'), '{}');

  const info = await inspectRepo(repo.dir);
  assert.deepEqual([...info.dirtyPaths].sort(), ['a.txt', 'new file.txt', 'renamed.txt']);
});

test('inspectRepo reports a detached HEAD as "HEAD" and works from a linked worktree', async (t) => {
  const repo = tempRepo(t);
  const head = repo.git(['rev-parse', 'HEAD']);
  repo.git(['checkout', '-q', '--detach']);
  assert.equal((await inspectRepo(repo.dir)).headRef, 'HEAD');

  const linked = join(repo.dir, '..', `${realpathSync(repo.dir).split('/').pop()}-linked`);
  t.after(() => rmSync(linked, { recursive: true, force: true }));
  repo.git(['worktree', 'add', '-q', '-b', 'side', linked, head]);
  const info = await inspectRepo(linked);
  assert.equal(info.root, realpathSync(linked));
  assert.equal(info.gitCommonDir, join(repo.dir, '.git'));
  assert.equal(info.headRef, 'side');
});

test('inspectRepo on a folder that is not a repository names making one as the next step', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-plain-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const error = await workspaceError(inspectRepo(dir));
  assert.match(error.message, /not inside a git repository/);
  assert.match(error.hint, /git repository with a first commit/);
  assert.deepEqual(error.next, [{ kind: 'initRepository' }]);
});

test('inspectRepo on a repository without commits asks for a first commit', async (t) => {
  const repo = tempRepo(t, { commit: false });
  const error = await workspaceError(inspectRepo(repo.dir));
  assert.match(error.message, /no commits/);
  assert.match(error.hint, /first commit/);
});

test('inspectRepo explains a missing git binary', async (t) => {
  const repo = tempRepo(t);
  const path = process.env.PATH;
  t.after(() => {
    process.env.PATH = path;
  });
  process.env.PATH = join(repo.dir, 'no-bin-here');
  const error = await workspaceError(inspectRepo(repo.dir));
  assert.match(error.message, /git was not found/);
  assert.match(error.hint, /Install git/);
});

test('ensureExcluded adds .taskloom/ once and git status stops showing it', async (t) => {
  const repo = tempRepo(t);
  mkdirSync(join(repo.dir, '.taskloom'));
  writeFileSync(join(repo.dir, '.taskloom', 'state.json'), '{}');
  assert.match(repo.git(['status', '--porcelain']), /\.taskloom\//);

  assert.equal(await ensureExcluded(join(repo.dir, '.git')), true);
  assert.equal(await ensureExcluded(join(repo.dir, '.git')), false);
  const exclude = readFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'utf8');
  assert.equal(exclude.split('\n').filter((l) => l === '.taskloom/').length, 1);
  assert.equal(repo.git(['status', '--porcelain']), '');
});

test('ensureExcluded creates info/exclude when missing and keeps existing lines', async (t) => {
  const repo = tempRepo(t);
  rmSync(join(repo.dir, '.git', 'info'), { recursive: true, force: true });
  assert.equal(await ensureExcluded(join(repo.dir, '.git')), true);
  assert.equal(readFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'utf8').trim().split('\n').pop(), '.taskloom/');

  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), '*.log');
  assert.equal(await ensureExcluded(join(repo.dir, '.git')), true);
  assert.match(readFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'utf8'), /^\*\.log\n(#.*\n)?\.taskloom\/\n$/);
});

test('gitVersion reports a version and worktree support', async () => {
  const { version, supportsWorktrees } = await gitVersion();
  assert.match(version, /^\d+\.\d+\.\S+$/);
  const [major, minor] = version.split('.').map(Number) as [number, number];
  assert.equal(supportsWorktrees, major > 2 || (major === 2 && minor >= 17));
});

test('Git works with GIT_* and EDITOR in the environment, both ways, and commits as Taskloom', async (t) => {
  const repo = tempRepo(t);
  const saved = { ...process.env };
  t.after(() => {
    for (const key of ['GIT_SSL_CAINFO', 'EDITOR', 'GIT_DIR']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });
  process.env.GIT_SSL_CAINFO = '/nonexistent/ca.pem';
  process.env.EDITOR = 'vi';
  process.env.GIT_DIR = '/nonexistent/.git';
  assert.ok(!Object.keys(cleanGitEnv()).some((k) => /^GIT_|^EDITOR$/i.test(k)));
  assert.equal(cleanGitEnv().LC_ALL, 'C');

  const git = new Git(repo.dir);
  writeFileSync(join(repo.dir, 'x.txt'), 'x\n');
  await git.run(['add', '-A']);
  await git.run(['commit', '-q', '-m', 'by taskloom']);
  assert.equal(repo.git(['log', '-1', '--format=%an <%ae>']), 'Taskloom <taskloom@localhost>');
  assert.equal((await (await git.typed()).status()).isClean(), true);
});
