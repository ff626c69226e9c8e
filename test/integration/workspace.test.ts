import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { IntegrationBranch } from '../../src/engine/workspace/integrationBranch';
import { readTaskBase, worktreeGitDir } from '../../src/engine/workspace/worktreeFiles';
import { WorktreeManager } from '../../src/engine/workspace/worktreeManager';
import { makeTempRepo } from '../helpers/tempRepo';

const SHARED = 'line 1\nline 2\nline 3\n';
const MESSAGES = { workInProgress: 'work in progress', merge: 'take in integration' };

async function setup(t: TestContext) {
  const repo = makeTempRepo({ files: { 'shared.txt': SHARED, 'README.md': '# demo\n' } });
  t.after(() => repo.cleanup());
  // What inspectRepo returns (tested on its own); built directly to spare git calls.
  const info = { root: repo.dir, gitCommonDir: join(repo.dir, '.git'), headCommit: repo.git(['rev-parse', 'HEAD']) };
  const manager = new WorktreeManager(info, 'r1');
  const integration = new IntegrationBranch(info, 'r1');
  // As the engine does when it opens a workspace: .taskloom/ (worktrees included) is not the user's work.
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), '.taskloom/\n');
  /** Runs git in any directory (a worktree) with the helper's identity and clean env. */
  const gitIn = (dir: string, args: string[]) => repo.git(['-C', dir, ...args]);
  const mergeInProgress = (dir: string) => existsSync(resolve(dir, gitIn(dir, ['rev-parse', '--git-path', 'MERGE_HEAD'])));
  return { repo, info, manager, integration, base: info.headCommit, gitIn, mergeInProgress };
}

/** Prepares a task, writes files into its worktree and commits them as the agent's work. */
async function doTask(manager: WorktreeManager, start: string, taskId: string, files: Record<string, string>) {
  const wt = await manager.prepareTaskWorktree({ taskId, startCommit: start, fresh: true });
  for (const [path, content] of Object.entries(files)) writeFileSync(join(wt.path, path), content);
  const committed = await manager.commitAll(wt.path, `${taskId}: work`);
  assert.ok(committed, `task ${taskId} should have committed`);
  return wt;
}

describe('task worktrees', { concurrency: true }, () => {
  test('live under .taskloom/ (not .git/, where Claude Code refuses to write) on their own branch, leaving the user tree untouched', async (t) => {
    const { repo, manager, base } = await setup(t);
    const wt = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });

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

  test('a task starts from the commit it is given (the verified integration head) and diffs against it', async (t) => {
    const { manager, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'from A\n' });
    const aTip = gitIn(a.path, ['rev-parse', 'HEAD']);
    const b = await manager.prepareTaskWorktree({ taskId: 'b', startCommit: aTip, fresh: true });

    assert.equal(readFileSync(join(b.path, 'a.txt'), 'utf8'), 'from A\n');
    assert.equal(b.baseCommit, aTip);
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
    const wt = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });
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

  test('!fresh reuses a prepared worktree with its recorded base and uncommitted work', async (t) => {
    const { manager, base } = await setup(t);
    const first = await manager.prepareTaskWorktree({ taskId: 'b', startCommit: base, fresh: true });
    writeFileSync(join(first.path, 'b.txt'), 'B\n');
    await manager.commitAll(first.path, 'b: first attempt');
    writeFileSync(join(first.path, 'in-progress.txt'), 'unsaved\n');

    const again = await manager.prepareTaskWorktree({ taskId: 'b', startCommit: base, fresh: false });
    assert.equal(again.reused, true);
    assert.equal(again.path, first.path);
    assert.equal(again.baseCommit, first.baseCommit);
    assert.ok(existsSync(join(again.path, 'in-progress.txt')));
  });

  test('!fresh rebuilds when the earlier preparation never finished (no base recorded)', async (t) => {
    const { manager, base } = await setup(t);
    const first = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });
    writeFileSync(join(first.path, 'junk.txt'), 'junk\n');
    // Crash before preparation finished: the base is recorded last.
    rmSync(join(worktreeGitDir(first.path), 'taskloom-base'));

    const again = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: false });
    assert.equal(again.reused, false);
    assert.equal(again.baseCommit, base);
    assert.ok(!existsSync(join(again.path, 'junk.txt')));
    assert.equal(await readTaskBase(again.path), base);
  });

  test('!fresh rebuilds when the recorded base is not a commit hash, and never hands it to git (an option-like value)', async (t) => {
    const { manager, base } = await setup(t);
    const first = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });
    writeFileSync(join(first.path, 'junk.txt'), 'junk\n');
    writeFileSync(join(worktreeGitDir(first.path), 'taskloom-base'), '--output=stolen.txt\n');
    assert.equal(await readTaskBase(first.path), null);

    const again = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: false });
    assert.equal(again.reused, false);
    assert.equal(again.baseCommit, base);
    assert.ok(!existsSync(join(again.path, 'junk.txt')));
    assert.ok(!existsSync(join(again.path, 'stolen.txt')));
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
      const wt = await manager.prepareTaskWorktree({ taskId, startCommit: base, fresh: true });
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
      manager.prepareTaskWorktree({ taskId: '../escape', startCommit: base, fresh: true }),
      /Invalid task id/,
    );
  });
});

describe('taking in integration (a task the merge queue sent back)', { concurrency: true }, () => {
  test('a clean merge is committed on the task branch; a conflict is left in progress with its markers', async (t) => {
    const { manager, base, gitIn, mergeInProgress } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'shared.txt': 'line 1\nA\nline 3\n' });
    const c = await doTask(manager, base, 'c', { 'c.txt': 'C\n' });
    const aTip = gitIn(a.path, ['rev-parse', 'HEAD']);

    const clean = await manager.syncWithIntegration('c', aTip, MESSAGES);
    assert.deepEqual(clean.conflicts, []);
    assert.equal(mergeInProgress(c.path), false);
    assert.equal(readFileSync(join(c.path, 'shared.txt'), 'utf8'), 'line 1\nA\nline 3\n');
    assert.equal(gitIn(c.path, ['rev-list', '--parents', '-n', '1', 'HEAD']).split(' ').length, 3, 'a merge commit');
    assert.equal(await readTaskBase(c.path), aTip);

    const b = await doTask(manager, base, 'b', { 'shared.txt': 'line 1\nB\nline 3\n' });
    const bTip = gitIn(b.path, ['rev-parse', 'HEAD']);
    const conflicted = await manager.syncWithIntegration('b', aTip, MESSAGES);
    assert.deepEqual(conflicted, { path: b.path, from: bTip, conflicts: ['shared.txt'], added: false });
    assert.equal(mergeInProgress(b.path), true);
    assert.match(readFileSync(join(b.path, 'shared.txt'), 'utf8'), /^<<<<<<< HEAD\nB\n=======\nA\n>>>>>>> /m);

    // Asked again for the same commit (a resolution that goes on): the merge in progress is kept.
    writeFileSync(join(b.path, 'notes.txt'), 'half done\n');
    assert.deepEqual(await manager.syncWithIntegration('b', aTip, MESSAGES), { path: b.path, from: bTip, conflicts: ['shared.txt'], added: false });
    assert.ok(existsSync(join(b.path, 'notes.txt')));
  });

  test('uncommitted work is committed before taking in integration; a missing worktree is added again at the branch', async (t) => {
    const { manager, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const b = await doTask(manager, base, 'b', { 'b.txt': 'B\n' });
    writeFileSync(join(b.path, 'wip.txt'), 'not committed\n');
    const aTip = gitIn(a.path, ['rev-parse', 'HEAD']);
    await manager.syncWithIntegration('b', aTip, MESSAGES);
    assert.equal(gitIn(b.path, ['show', 'HEAD:wip.txt']), 'not committed');

    await manager.removeTaskWorktree('b');
    const again = await manager.syncWithIntegration('b', aTip, MESSAGES);
    assert.deepEqual(again.conflicts, []);
    assert.equal(again.added, true, 'said, so the task sets the new worktree up again');
    assert.equal(readFileSync(join(b.path, 'b.txt'), 'utf8'), 'B\n');
  });

  test('restoreTaskBranch drops what came after the approved commit, with or without a worktree', async (t) => {
    const { repo, manager, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'approved\n' });
    const approved = gitIn(a.path, ['rev-parse', 'HEAD']);
    writeFileSync(join(a.path, 'a.txt'), 'never approved\n');
    await manager.commitAll(a.path, 'unapproved');
    writeFileSync(join(a.path, 'stray.txt'), 'x\n');
    await manager.restoreTaskBranch('a', approved);
    assert.equal(gitIn(a.path, ['rev-parse', 'HEAD']), approved);
    assert.equal(gitIn(a.path, ['status', '--porcelain']), '');

    await manager.commitAll(a.path, 'nothing');
    writeFileSync(join(a.path, 'a.txt'), 'again\n');
    await manager.commitAll(a.path, 'unapproved again');
    await manager.removeTaskWorktree('a');
    await manager.restoreTaskBranch('a', approved);
    assert.equal(repo.git(['rev-parse', a.branch]), approved);
  });
});

describe('integration branch (the merge queue)', { concurrency: true }, () => {
  test('merges candidates in a detached worktree; the branch moves only when published', async (t) => {
    const { repo, manager, integration, base, gitIn, mergeInProgress } = await setup(t);
    const tip = async (id: string, files: Record<string, string>) => gitIn((await doTask(manager, base, id, files)).path, ['rev-parse', 'HEAD']);
    const a = await tip('a', { 'shared.txt': 'line 1\nA\nline 3\n' });
    const b = await tip('b', { 'shared.txt': 'line 1\nB\nline 3\n' });
    const c = await tip('c', { 'c.txt': 'C\n' });
    const prepared = await integration.prepare(base);
    assert.equal(prepared.head, base);
    assert.equal(gitIn(prepared.path, ['rev-parse', '--abbrev-ref', 'HEAD']), 'HEAD', 'detached');

    const mergedA = await integration.mergeCandidate(a, 'Merge a');
    assert.equal(mergedA.status, 'merged');
    assert.deepEqual(await integration.mergeCandidate(b, 'Merge b'), { status: 'conflict', files: ['shared.txt'] });
    assert.equal(gitIn(prepared.path, ['status', '--porcelain']), '');
    assert.equal(mergeInProgress(prepared.path), false);
    const mergedC = await integration.mergeCandidate(c, 'Merge c');
    assert.equal(mergedC.status, 'merged');
    assert.equal(await integration.verifiedHead(), base, 'not published yet');

    const head = (mergedC as { commit: string }).commit;
    await integration.publish(head, base);
    assert.equal(await integration.verifiedHead(), head);
    assert.equal(repo.git(['show', `${integration.branch}:shared.txt`]), 'line 1\nA\nline 3');
    assert.equal(repo.git(['rev-list', '--merges', '--count', `${base}..${integration.branch}`]), '2');
    // Compare-and-swap: publishing over a branch that moved is refused.
    await assert.rejects(integration.publish(head, base));
    assert.equal((await integration.mergeCandidate(a, 'Merge a')).status, 'already');
  });

  test('prepare after a crash drops an unpublished batch and a half-done merge, and keeps what was published', async (t) => {
    const { manager, integration, base, gitIn, mergeInProgress } = await setup(t);
    const a = gitIn((await doTask(manager, base, 'a', { 'shared.txt': 'line 1\nA\nline 3\n' })).path, ['rev-parse', 'HEAD']);
    const b = (await doTask(manager, base, 'b', { 'shared.txt': 'line 1\nB\nline 3\n' })).branch;
    const { path } = await integration.prepare(base);
    const mergedA = (await integration.mergeCandidate(a, 'Merge a')) as { commit: string };
    await integration.publish(mergedA.commit, base);
    assert.throws(() => gitIn(path, ['merge', '--no-ff', '-m', 'crashing', b]));
    assert.equal(mergeInProgress(path), true);

    const again = await integration.prepare(base);
    assert.equal(again.head, mergedA.commit);
    assert.equal(mergeInProgress(path), false);
    assert.equal(gitIn(path, ['status', '--porcelain']), '');
    rmSync(path, { recursive: true, force: true });
    assert.equal((await integration.prepare(base)).head, mergedA.commit);
    assert.equal(gitIn(path, ['rev-parse', 'HEAD']), mergedA.commit);
  });

  test('a ref lock a killed git left on one of the run\'s branches is removed when a drive starts', async (t) => {
    const { repo, manager, integration, base } = await setup(t);
    await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const lock = join(repo.dir, '.git', 'refs', 'heads', 'taskloom', 'r1', 'a.lock');
    writeFileSync(lock, '');
    await assert.rejects(manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true }), /cannot lock ref/);
    await integration.prepare(base);
    assert.ok(!existsSync(lock));
    await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });
  });

  test('every lock a killed git left in the run\'s worktrees is removed when a drive starts, and none of the user\'s checkout', async (t) => {
    const { repo, manager, integration, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const { path } = await integration.prepare(base);
    // What a merge SIGKILLed in the integration worktree leaves (seen in the kill campaign), and an index lock in a task's.
    const integrationLocks = ['ORIG_HEAD.lock', 'HEAD.lock', 'index.lock'].map((name) => join(worktreeGitDir(path), name));
    const taskLock = join(worktreeGitDir(a.path), 'index.lock');
    const usersLock = join(repo.dir, '.git', 'index.lock');
    for (const lock of [...integrationLocks, taskLock, usersLock]) writeFileSync(lock, '');
    assert.throws(() => gitIn(path, ['merge', '--no-ff', '-m', 'blocked', a.branch]), /lock/);

    await integration.prepare(base);
    for (const lock of [...integrationLocks, taskLock]) assert.ok(!existsSync(lock), `${lock} is left`);
    assert.ok(existsSync(usersLock), "the user's own checkout is not Taskloom's to unlock");
    assert.equal((await integration.mergeCandidate(gitIn(a.path, ['rev-parse', 'HEAD']), 'Merge a')).status, 'merged');
  });

  test('a 0.1 integration worktree (the branch checked out) is detached, so publishing can move the branch', async (t) => {
    const { repo, integration, base, gitIn } = await setup(t);
    repo.git(['branch', integration.branch, base]);
    repo.git(['worktree', 'add', '-q', integration.path, integration.branch]);
    const { path } = await integration.prepare(base);
    assert.equal(gitIn(path, ['rev-parse', '--abbrev-ref', 'HEAD']), 'HEAD');
  });
});

describe('cleanup', { concurrency: true }, () => {
  test('removes merged task worktrees and keeps unmerged ones, never deleting branches', async (t) => {
    const { repo, manager, integration, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const b = await doTask(manager, base, 'b', { 'b.txt': 'B\n' });
    const c = await doTask(manager, base, 'c', { 'c.txt': 'C\n' });
    await mergeAndPublish(integration, base, gitIn(a.path, ['rev-parse', 'HEAD']));

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
    const { manager, integration, base, gitIn } = await setup(t);
    const a = await doTask(manager, base, 'a', { 'a.txt': 'A\n' });
    const head = await mergeAndPublish(integration, base, gitIn(a.path, ['rev-parse', 'HEAD']));
    writeFileSync(join(a.path, 'late.txt'), 'not committed\n');
    assert.match((await manager.removeMergedTaskWorktree('a', head))!, /uncommitted/);

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

async function mergeAndPublish(integration: IntegrationBranch, base: string, commit: string): Promise<string> {
  await integration.prepare(base);
  const merged = (await integration.mergeCandidate(commit, 'Merge')) as { commit: string };
  await integration.publish(merged.commit, base);
  return merged.commit;
}
