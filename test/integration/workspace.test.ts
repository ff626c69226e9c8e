import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { DependencyMergeError } from '../../src/engine/workspace/errors';
import { readTaskBase, worktreeGitDir } from '../../src/engine/workspace/worktreeFiles';
import { WorktreeManager } from '../../src/engine/workspace/worktreeManager';
import { makeTempRepo } from '../helpers/tempRepo';

const SHARED = 'line 1\nline 2\nline 3\n';

async function setup(t: TestContext) {
  const repo = makeTempRepo({ files: { 'shared.txt': SHARED, 'README.md': '# demo\n' } });
  t.after(() => repo.cleanup());
  // What inspectRepo returns (tested on its own); built directly to spare git calls.
  const info = { root: repo.dir, gitCommonDir: join(repo.dir, '.git'), headCommit: repo.git(['rev-parse', 'HEAD']) };
  const manager = new WorktreeManager(info, 'r1');
  // As the engine does when it opens a workspace: .taskloom/ (worktrees included) is not the user's work.
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), '.taskloom/\n');
  /** Runs git in any directory (a worktree) with the helper's identity and clean env. */
  const gitIn = (dir: string, args: string[]) => repo.git(['-C', dir, ...args]);
  const mergeInProgress = (dir: string) => existsSync(resolve(dir, gitIn(dir, ['rev-parse', '--git-path', 'MERGE_HEAD'])));
  return { repo, info, manager, base: info.headCommit, gitIn, mergeInProgress };
}

/** Prepares a task, writes files into its worktree and commits them as the agent's work. */
async function doTask(
  manager: WorktreeManager,
  base: string,
  taskId: string,
  files: Record<string, string>,
  dependencyBranches: string[] = [],
) {
  const wt = await manager.prepareTaskWorktree({ taskId, runBaseCommit: base, dependencyBranches, fresh: true });
  for (const [path, content] of Object.entries(files)) writeFileSync(join(wt.path, path), content);
  const committed = await manager.commitAll(wt.path, `${taskId}: work`);
  assert.ok(committed, `task ${taskId} should have committed`);
  return wt;
}

describe('task worktrees', { concurrency: true }, () => {
  test('live under .taskloom/ (not .git/, where Claude Code refuses to write) on their own branch, leaving the user tree untouched', async (t) => {
    const { repo, manager, base } = await setup(t);
    const wt = await manager.prepareTaskWorktree({ taskId: 'a', runBaseCommit: base, dependencyBranches: [], fresh: true });

    assert.equal(wt.path, join(repo.dir, '.taskloom', 'worktrees', 'r1', 'a'));
    assert.equal(wt.branch, 'taskloom/r1/a');
    assert.equal(wt.baseCommit, base);
    assert.equal(wt.reused, false);
    assert.equal(repo.git(['-C', wt.path, 'rev-parse', '--abbrev-ref', 'HEAD']), 'taskloom/r1/a');
    assert.ok(existsSync(join(wt.path, 'shared.txt')));
    // Nothing new is visible in the user's folder, and their branch did not move.
    assert.equal(repo.git(['status', '--porcelain']), '');
    assert.equal(repo.git(['rev-parse', '--abbrev-ref', 'HEAD']), 'main');
  });

  test('a dependent task starts from its dependency’s committed code', async (t) => {
    const { manager, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'from A\n' });
    const b = await manager.prepareTaskWorktree({
      taskId: 'b',
      runBaseCommit: base,
      dependencyBranches: [a.branch],
      fresh: true,
    });

    assert.equal(readFileSync(join(b.path, 'a.txt'), 'utf8'), 'from A\n');
    assert.notEqual(b.baseCommit, base);
    assert.equal(gitIn(b.path, ['rev-parse', 'HEAD']), b.baseCommit);
    // The base includes A's work, so B's diff shows only B's own changes.
    writeFileSync(join(b.path, 'b.txt'), 'from B\n');
    const diff = await manager.diffFromBase(b.path, b.baseCommit);
    assert.match(diff, /b\/b\.txt/);
    assert.doesNotMatch(diff, /a\.txt/);
  });

  test('diffFromBase covers commits, edits and untracked files without staging anything', async (t) => {
    const { manager, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'committed.txt': 'committed\n' });
    // Same size, written right after the commit wrote the index: only racy-git checks can see it,
    // and they depend on the index's mtime, which a scratch copy made a second later must keep.
    writeFileSync(join(a.path, 'shared.txt'), 'line 1\nEDITED\nline 3\n');
    writeFileSync(join(a.path, 'untracked.txt'), 'new\n');
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const diff = await manager.diffFromBase(a.path, a.baseCommit);
    assert.match(diff, /^\+committed$/m);
    assert.match(diff, /^-line 2$/m);
    assert.match(diff, /^\+EDITED$/m);
    assert.match(diff, /^\+new$/m);
    assert.match(gitIn(a.path, ['status', '--porcelain']), /^\?\? untracked\.txt$/m);
  });

  test('commitAll commits additions and deletions, and nothing when nothing changed', async (t) => {
    const { manager, base, gitIn } = await setup(t);
    const wt = await manager.prepareTaskWorktree({ taskId: 'a', runBaseCommit: base, dependencyBranches: [], fresh: true });
    assert.equal(await manager.commitAll(wt.path, 'nothing'), null);

    rmSync(join(wt.path, 'README.md'));
    writeFileSync(join(wt.path, 'new.txt'), 'x\n');
    const result = await manager.commitAll(wt.path, 'work');
    assert.ok(result);
    assert.deepEqual([...result.filesChanged].sort(), ['README.md', 'new.txt']);
    assert.equal(gitIn(wt.path, ['rev-parse', 'HEAD']), result.commit);
    assert.equal(gitIn(wt.path, ['log', '-1', '--format=%an %s']), 'Taskloom work');
    assert.equal(gitIn(wt.path, ['status', '--porcelain']), '');
  });

  test('conflicting dependencies abort the merge and name the dependency and files', async (t) => {
    const { manager, base, gitIn, mergeInProgress } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'shared.txt': 'line 1\nA\nline 3\n' });
    const b = await doTask(manager, base, 'b', { 'shared.txt': 'line 1\nB\nline 3\n' });

    const error = await manager
      .prepareTaskWorktree({ taskId: 'c', runBaseCommit: base, dependencyBranches: [a.branch, b.branch], fresh: true })
      .then(
        () => assert.fail('expected a DependencyMergeError'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof DependencyMergeError);
    assert.equal(error.dependency, b.branch);
    assert.deepEqual(error.mergedDependencies, [a.branch]);
    assert.deepEqual(error.files, ['shared.txt']);
    assert.match(error.hint, /retry/i);
    const cPath = manager.taskPath('c');
    assert.equal(gitIn(cPath, ['status', '--porcelain']), '');
    assert.equal(mergeInProgress(cPath), false);
  });

  test('!fresh reuses a prepared worktree with its recorded base and uncommitted work', async (t) => {
    const { manager, base } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const first = await manager.prepareTaskWorktree({
      taskId: 'b',
      runBaseCommit: base,
      dependencyBranches: [a.branch],
      fresh: true,
    });
    await manager.commitAll(first.path, 'b: first attempt');
    writeFileSync(join(first.path, 'in-progress.txt'), 'unsaved\n');

    const again = await manager.prepareTaskWorktree({
      taskId: 'b',
      runBaseCommit: base,
      dependencyBranches: [a.branch],
      fresh: false,
    });
    assert.equal(again.reused, true);
    assert.equal(again.path, first.path);
    assert.equal(again.baseCommit, first.baseCommit);
    assert.ok(existsSync(join(again.path, 'in-progress.txt')));
  });

  test('!fresh rebuilds when the earlier preparation never finished (no base recorded)', async (t) => {
    const { manager, base } = await setup(t);
    const first = await manager.prepareTaskWorktree({ taskId: 'a', runBaseCommit: base, dependencyBranches: [], fresh: true });
    writeFileSync(join(first.path, 'junk.txt'), 'junk\n');
    // Crash before preparation finished: the base is recorded last.
    rmSync(join(worktreeGitDir(first.path), 'taskloom-base'));

    const again = await manager.prepareTaskWorktree({ taskId: 'a', runBaseCommit: base, dependencyBranches: [], fresh: false });
    assert.equal(again.reused, false);
    assert.equal(again.baseCommit, base);
    assert.ok(!existsSync(join(again.path, 'junk.txt')));
    assert.equal(await readTaskBase(again.path), base);
  });

  test('fresh preparation recovers from a crash: stray directory, missing or locked registration, old branch', async (t) => {
    const { repo, manager, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'old.txt': 'old attempt\n' });
    const b = await doTask(manager, base, 'b', { 'old.txt': 'old attempt\n' });

    // a: the directory vanished but git still has it registered (and locked, as mid-`worktree add`).
    repo.git(['worktree', 'lock', a.path]);
    rmSync(a.path, { recursive: true, force: true });
    // b: the registration is gone but a stray directory with leftovers sits at the path.
    rmSync(b.path, { recursive: true, force: true });
    repo.git(['worktree', 'prune']);
    mkdirSync(b.path, { recursive: true });
    writeFileSync(join(b.path, 'leftover.txt'), 'x\n');

    for (const taskId of ['a', 'b']) {
      const wt = await manager.prepareTaskWorktree({ taskId, runBaseCommit: base, dependencyBranches: [], fresh: true });
      assert.equal(wt.reused, false);
      assert.equal(gitIn(wt.path, ['rev-parse', 'HEAD']), base, `${taskId} branch restarts at the run base`);
      assert.ok(!existsSync(join(wt.path, 'old.txt')));
      assert.ok(!existsSync(join(wt.path, 'leftover.txt')));
      assert.equal(gitIn(wt.path, ['status', '--porcelain']), '');
    }
    const registered = (await manager.listWorktrees()).map((e) => e.path);
    assert.equal(registered.filter((p) => p === a.path).length, 1);
    assert.equal(registered.filter((p) => p === b.path).length, 1);
  });

  test('rejects ids that cannot be branch names', async (t) => {
    const { manager, base } = await setup(t);
    await assert.rejects(
      manager.prepareTaskWorktree({ taskId: '../escape', runBaseCommit: base, dependencyBranches: [], fresh: true }),
      /Invalid task id/,
    );
  });
});

describe('integration merges', { concurrency: true }, () => {
  test('a conflict is recorded with its file, other merges are kept and the tree stays clean', async (t) => {
    const { manager, base, gitIn, mergeInProgress } = await setup(t);
    await doTask(manager, base, 'a', { 'shared.txt': 'line 1\nA\nline 3\n' });
    await doTask(manager, base, 'b', { 'shared.txt': 'line 1\nB\nline 3\n' });
    await doTask(manager, base, 'c', { 'c.txt': 'C\n' });
    const integration = await manager.prepareIntegration(base);

    const mergedA = await manager.mergeTask('a', 'Merge a');
    assert.equal(mergedA.status, 'merged');
    assert.deepEqual(await manager.mergeTask('b', 'Merge b'), { status: 'conflict', files: ['shared.txt'] });
    assert.equal(gitIn(integration.path, ['status', '--porcelain']), '');
    assert.equal(mergeInProgress(integration.path), false);

    const mergedC = await manager.mergeTask('c', 'Merge c');
    assert.equal(mergedC.status, 'merged');
    assert.equal(await manager.integrationHead(), (mergedC as { commit: string }).commit);
    assert.equal(readFileSync(join(integration.path, 'shared.txt'), 'utf8'), 'line 1\nA\nline 3\n');
    assert.ok(existsSync(join(integration.path, 'c.txt')));
    assert.equal(gitIn(integration.path, ['log', '-1', '--format=%s']), 'Merge c');
  });

  test('merging the same task twice is reported as already merged, with one merge commit', async (t) => {
    const { repo, manager, base } = await setup(t);
    await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    await manager.prepareIntegration(base);

    const first = await manager.mergeTask('a', 'Merge a');
    const second = await manager.mergeTask('a', 'Merge a');
    assert.equal(first.status, 'merged');
    assert.deepEqual(second, { status: 'already', commit: (first as { commit: string }).commit });
    assert.equal(repo.git(['rev-list', '--merges', '--count', `${base}..${manager.integrationBranch}`]), '1');
  });

  test('prepareIntegration after a crash aborts a half-done merge and keeps earlier merges', async (t) => {
    const { repo, manager, base, gitIn, mergeInProgress } = await setup(t);
    await doTask(manager, base, 'a', { 'shared.txt': 'line 1\nA\nline 3\n' });
    const b = await doTask(manager, base, 'b', { 'shared.txt': 'line 1\nB\nline 3\n' });
    const integration = await manager.prepareIntegration(base);
    await manager.mergeTask('a', 'Merge a');
    const afterA = await manager.integrationHead();

    // Crash mid-merge: a conflicted merge left in progress.
    assert.throws(() => gitIn(integration.path, ['merge', '--no-ff', '-m', 'crashing', b.branch]));
    assert.equal(mergeInProgress(integration.path), true);

    const again = await manager.prepareIntegration(base);
    assert.equal(again.path, integration.path);
    assert.equal(mergeInProgress(integration.path), false);
    assert.equal(gitIn(integration.path, ['status', '--porcelain']), '');
    assert.equal(await manager.integrationHead(), afterA);

    // The worktree directory itself lost: the branch (and its merges) is checked out again, not reset.
    rmSync(integration.path, { recursive: true, force: true });
    await manager.prepareIntegration(base);
    assert.equal(await manager.integrationHead(), afterA);
    assert.equal(repo.git(['-C', integration.path, 'rev-parse', 'HEAD']), afterA);
    assert.equal((await manager.mergeTask('a', 'Merge a')).status, 'already');
  });
});

describe('cleanup', { concurrency: true }, () => {
  test('removes merged task worktrees and keeps unmerged ones, never deleting branches', async (t) => {
    const { repo, manager, base } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const b = await doTask(manager, base, 'b', { 'b.txt': 'B\n' });
    const c = await doTask(manager, base, 'c', { 'c.txt': 'C\n' });
    await manager.prepareIntegration(base);
    await manager.mergeTask('a', 'Merge a');

    // b is claimed GREEN but was never merged: its worktree and branch must survive.
    const result = await manager.cleanup({ greenTaskIds: ['a', 'b'] });
    assert.deepEqual(result.removed, ['a']);
    assert.deepEqual(
      result.kept.map((k) => k.taskId).sort(),
      ['b', 'c'],
    );
    assert.match(result.kept.find((k) => k.taskId === 'b')!.reason, /GREEN work not merged/);
    assert.ok(!existsSync(a.path));
    assert.ok(existsSync(join(b.path, 'b.txt')));
    assert.ok(existsSync(join(c.path, 'c.txt')));
    for (const branch of [a.branch, b.branch, c.branch]) {
      assert.match(repo.git(['rev-parse', '--verify', branch]), /^[0-9a-f]{40}$/);
    }
    assert.ok(!(await manager.listWorktrees()).some((e) => e.path === a.path));
  });

  test('keeps a merged worktree that still has uncommitted changes', async (t) => {
    const { manager, base } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    await manager.prepareIntegration(base);
    await manager.mergeTask('a', 'Merge a');
    writeFileSync(join(a.path, 'late.txt'), 'not committed\n');

    const result = await manager.cleanup({ greenTaskIds: ['a'] });
    assert.deepEqual(result.removed, []);
    assert.match(result.kept[0]!.reason, /uncommitted/);
    assert.ok(existsSync(join(a.path, 'late.txt')));
  });

  test('removeTaskWorktree keeps the branch', async (t) => {
    const { repo, manager, base } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    await manager.removeTaskWorktree('a');
    assert.ok(!existsSync(a.path));
    assert.equal(repo.git(['show', `${a.branch}:a.txt`]), 'A');
  });
});
