import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { commitEverything } from '../../src/engine/workspace/commitEverything';
import { WorkspaceError } from '../../src/engine/workspace/errors';
import { Git, GitCommandError } from '../../src/engine/workspace/git';
import { hasStagedChanges, isAncestor, resolveCommit } from '../../src/engine/workspace/gitQueries';
import { readFileAtCommit } from '../../src/engine/workspace/readFileAtCommit';
import { repositoryTop } from '../../src/engine/workspace/repoInspector';
import { GitTimer } from '../helpers/gitTimer';
import { makeTempRepo } from '../helpers/tempRepo';

function tempRepo(t: TestContext, options?: Parameters<typeof makeTempRepo>[0]) {
  const repo = makeTempRepo(options);
  t.after(() => repo.cleanup());
  return repo;
}

/** A repository with two commits on main: `first` is an ancestor of `second`. */
function twoCommits(t: TestContext) {
  const repo = tempRepo(t, { files: { 'a.txt': 'a\n', 'src/b.txt': 'b\n' } });
  const first = repo.git(['rev-parse', 'HEAD']);
  writeFileSync(join(repo.dir, 'a.txt'), 'a, changed\n');
  repo.git(['commit', '-qam', 'second']);
  return { repo, first, second: repo.git(['rev-parse', 'HEAD']) };
}

test('isAncestor is git merge-base --is-ancestor: exit 0 yes, exit 1 no', async (t) => {
  const { repo, first, second } = twoCommits(t);
  const git = new Git(repo.dir);
  assert.equal(await isAncestor(git, first, second), true);
  assert.equal(await isAncestor(git, second, second), true);
  assert.equal(await isAncestor(git, second, first), false);
});

test('resolveCommit answers null for a missing ref (rev-parse --verify exits 1) and the hash otherwise', async (t) => {
  const { repo, second } = twoCommits(t);
  const git = new Git(repo.dir);
  assert.equal(await resolveCommit(git, 'refs/heads/main'), second);
  assert.equal(await resolveCommit(git, 'refs/heads/no-such-branch'), null);
  assert.equal(await resolveCommit(git, '0123456789abcdef0123456789abcdef01234567'), null, 'a well-formed hash git does not have');
});

test('an exit code the caller did not accept throws GitCommandError with the code, the args and stderr', async (t) => {
  const { repo, first } = twoCommits(t);
  const git = new Git(repo.dir);
  const error = await git.run(['rev-parse', '--verify', 'no-such-ref^{commit}']).then(
    () => assert.fail('expected a GitCommandError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof GitCommandError);
  assert.equal(error.exitCode, 128);
  assert.deepEqual(error.args, ['rev-parse', '--verify', 'no-such-ref^{commit}']);
  assert.match(error.stderr, /Needed a single revision/);

  // is-ancestor's answers are 0 and 1; an unknown commit is neither, and is not taken for "no".
  await assert.rejects(isAncestor(git, 'no-such-ref', first), (e: unknown) => e instanceof GitCommandError && e.exitCode === 128);
  // An accepted code is an answer, not an error.
  assert.equal((await git.run(['config', '--get', 'no.such-key'], { accept: [0, 1] })).exitCode, 1);
});

test('git that cannot start says why in systemCode', async () => {
  const missing = join(tmpdir(), 'taskloom-no-such-folder', 'deeper');
  const error = await new Git(missing).run(['status']).then(
    () => assert.fail('expected a GitCommandError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof GitCommandError);
  assert.equal(error.exitCode, null);
  assert.equal(error.systemCode, 'ENOENT');
});

test('commitEverything tells "nothing to commit" by exit code and the index, whatever language git speaks', async (t) => {
  const repo = tempRepo(t, { files: { 'a.txt': 'a\n' } });
  // LC_ALL=C.UTF-8 lets LANGUAGE choose git's language (Taskloom itself runs git under LC_ALL=C).
  const git = new Git(repo.dir, { env: { LC_ALL: 'C.UTF-8', LANGUAGE: 'de' } });
  const status = (await git.run(['status'])).stdout;
  if (!/Auf Branch/.test(status)) t.diagnostic('this git has no German messages: only the English path is exercised');
  const head = repo.git(['rev-parse', 'HEAD']);

  assert.equal(await commitEverything(git, 'nothing'), null);
  assert.equal(repo.git(['rev-parse', 'HEAD']), head, 'no commit made');

  writeFileSync(join(repo.dir, 'a.txt'), 'a, changed\n');
  writeFileSync(join(repo.dir, 'new file.txt'), 'new\n');
  const made = await commitEverything(git, 'everything');
  assert.ok(made);
  assert.equal(made.commit, repo.git(['rev-parse', 'HEAD']));
  assert.deepEqual(made.filesChanged.sort(), ['a.txt', 'new file.txt']);
  assert.equal(await commitEverything(git, 'nothing again'), null);
});

test('commitEverything reports a commit git refused for another reason than an empty index', async (t) => {
  const repo = tempRepo(t, { files: { 'a.txt': 'a\n' } });
  // No identity anywhere and none guessed: git refuses the commit although the index holds a change.
  repo.git(['config', 'user.useConfigOnly', 'true']);
  const home = mkdtempSync(join(tmpdir(), 'taskloom-no-identity-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(join(repo.dir, 'a.txt'), 'a, changed\n');
  const git = new Git(repo.dir, { taskloomIdentity: false, env: { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
  await assert.rejects(commitEverything(git, 'refused'), (e: unknown) => e instanceof GitCommandError && e.exitCode === 128);
  assert.equal(await hasStagedChanges(git), true, 'the change is still staged');
});

test('readFileAtCommit reads a file at a commit, null for a folder or a missing path, and refuses an unknown commit', async (t) => {
  const { repo, first, second } = twoCommits(t);
  assert.equal(await readFileAtCommit(repo.dir, first, 'a.txt'), 'a\n');
  assert.equal(await readFileAtCommit(repo.dir, second, 'a.txt'), 'a, changed\n');
  assert.equal(await readFileAtCommit(repo.dir, second, 'src/b.txt'), 'b\n');
  assert.equal(await readFileAtCommit(repo.dir, second, 'src'), null);
  assert.equal(await readFileAtCommit(repo.dir, second, 'missing.txt'), null);
  await assert.rejects(
    readFileAtCommit(repo.dir, '0123456789abcdef0123456789abcdef01234567', 'a.txt'),
    (e: unknown) => e instanceof WorkspaceError && e.kind === 'bad_input',
  );
});

test('repositoryTop finds the top from a subfolder, and null outside any repository', async (t) => {
  const repo = tempRepo(t, { files: { 'src/deep/x.txt': 'x\n' } });
  assert.equal(await repositoryTop(join(repo.dir, 'src', 'deep')), repo.dir);
  const plain = mkdtempSync(join(tmpdir(), 'taskloom-plain-'));
  t.after(() => rmSync(plain, { recursive: true, force: true }));
  assert.equal(await repositoryTop(plain), null);
});

test('an observer hears every git process, from the runner and from simple-git alike', async (t) => {
  const { repo, first } = twoCommits(t);
  const timer = new GitTimer();
  const git = new Git(repo.dir, { observer: timer });
  await git.run(['update-ref', 'refs/test/one', first]);
  await isAncestor(git, first, 'HEAD');
  await (await git.typed()).status();
  // The repository's config is read once (which programs it names), not again while it is unchanged.
  assert.deepEqual(timer.subcommands, ['config', 'update-ref', 'merge-base', 'status']);
  assert.equal(timer.commands, 4);
  assert.ok(timer.busyMs > 0 && timer.totalMs >= timer.busyMs);
});
