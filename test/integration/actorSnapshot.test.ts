import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { TaskloomEngine } from '../../src/engine/run/engine';
import { actorSnapshotRef, snapshotWorktree } from '../../src/engine/workspace/actorSnapshot';
import { WorktreeManager, type RepoLocation } from '../../src/engine/workspace/worktreeManager';
import { runCli, writeInputs } from '../helpers/cli';
import { GitTimer } from '../helpers/gitTimer';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

function repo(files: Record<string, string>): TempRepo {
  const r = makeTempRepo({ files });
  cleanups.push(r.cleanup);
  return r;
}

function runDir(dir: string): { runId: string; path: string } {
  const runs = join(dir, '.taskloom', 'runs');
  const [runId] = readdirSync(runs);
  assert.ok(runId, 'a run folder');
  return { runId, path: join(runs, runId) };
}

function readEvents(path: string): RunEvent[] {
  return readFileSync(join(path, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RunEvent);
}

/** Branches (any) whose history contains `commit`. */
const branchesContaining = (r: TempRepo, commit: string): string[] =>
  r.git(['branch', '--all', '--contains', commit, '--format=%(refname)']).split('\n').filter(Boolean);

describe('actor snapshots (real git, scripted agent)', () => {
  it('snapshots the worktree before every actor attempt, outside every branch, restorable from the ledger', async () => {
    const r = repo({ 'README.md': '# demo\n', 'keep.txt': 'precious original\n' });
    const plan = {
      goal: 'snapshots',
      tasks: [{ id: 'fix', title: 'Fix things', description: 'do it', acceptance: [], dependsOn: [] }],
    };
    const scenario = {
      tasks: {
        fix: {
          actor: [
            { delete: ['keep.txt'], write: { 'garbage.txt': '\u0000garbage\u0000\n' }, delayMs: 0 },
            { delete: ['garbage.txt'], write: { 'keep.txt': 'precious original\n' }, delayMs: 0 },
          ],
          critic: [{ verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 }],
        },
      },
    };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    const result = runCli([
      'run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes',
      '--gate', 'test -f keep.txt && test ! -f garbage.txt',
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);

    const { runId, path } = runDir(r.dir);
    const events = readEvents(path);
    const snapshots = events.filter((e): e is Extract<RunEvent, { type: 'actor_snapshot' }> => e.type === 'actor_snapshot');
    assert.deepEqual(snapshots.map((s) => [s.taskId, s.attempt]), [['fix', 1], ['fix', 2]]);
    const gates = events.filter((e) => e.type === 'gate_result' && e.taskId === 'fix');
    assert.deepEqual(gates.map((g) => (g as Extract<RunEvent, { type: 'gate_result' }>).passed), [false, true]);

    // Each snapshot comes before the actor call of its attempt.
    const actorCalls = events.filter((e) => e.type === 'runner_call' && e.role === 'actor');
    assert.equal(actorCalls.length, 2);
    snapshots.forEach((s, i) => assert.ok(s.seq < actorCalls[i]!.seq, `snapshot ${s.attempt} precedes its actor call`));

    const [first, second] = snapshots as [typeof snapshots[0], typeof snapshots[0]];
    for (const s of snapshots) {
      assert.equal(s.ref, actorSnapshotRef(runId, 'fix', s.attempt));
      assert.equal(r.git(['rev-parse', s.ref]), s.commit, 'the ref keeps the snapshot reachable');
    }
    // Attempt 1's snapshot holds the original file; attempt 2's shows the damage attempt 1 did.
    assert.equal(r.git(['show', `${first.commit}:keep.txt`]), 'precious original');
    assert.throws(() => r.git(['show', `${first.commit}:garbage.txt`]));
    assert.throws(() => r.git(['show', `${second.commit}:keep.txt`]));
    assert.match(r.git(['show', `${second.commit}:garbage.txt`]), /garbage/);

    // Not in the task branch, nor in the integration branch, nor in any other branch.
    const taskBranch = `refs/heads/taskloom/${runId}/fix`;
    const integration = `refs/heads/taskloom/${runId}/integration`;
    for (const s of snapshots) {
      for (const branch of [taskBranch, integration]) {
        assert.throws(() => r.git(['merge-base', '--is-ancestor', s.commit, branch]), `${s.commit} not in ${branch}`);
      }
      assert.deepEqual(branchesContaining(r, s.commit), []);
    }
    assert.equal(r.git(['show', `${integration}:keep.txt`]), 'precious original');

    // The ledger tells a human how to roll back.
    const decisions = readFileSync(join(path, 'DECISIONS.md'), 'utf8');
    assert.match(decisions, new RegExp(`Snapshot before attempt 1: ${first.commit.slice(0, 10)}`));
    assert.ok(decisions.includes(`git checkout ${first.commit} -- .`), decisions);
    assert.ok(decisions.includes(`git checkout ${second.commit} -- .`), decisions);

    // Rolling back: a checkout in the state attempt 1 left behind gets the file back.
    const scratch = mkdtempSync(join(tmpdir(), 'taskloom-rollback-'));
    const worktree = join(scratch, 'wt');
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    r.git(['worktree', 'add', '-q', '--detach', worktree, second.commit]);
    assert.equal(existsSync(join(worktree, 'keep.txt')), false);
    r.git(['-C', worktree, 'checkout', first.commit, '--', '.']);
    assert.equal(readFileSync(join(worktree, 'keep.txt'), 'utf8'), 'precious original\n');
    r.git(['worktree', 'remove', '--force', worktree]);

    // Discarding the run drops the snapshot refs with the branches.
    const removed = await new WorktreeManager({ root: r.dir, gitCommonDir: join(r.dir, '.git') }, runId).discardRun();
    assert.ok(removed.branches.length > 0);
    assert.equal(r.git(['for-each-ref', 'refs/taskloom']), '', 'no snapshot ref left after discard');
  });

  it('Restore puts a waiting task’s worktree back as a snapshot holds it; files made since stay', async () => {
    const r = repo({ 'README.md': '# demo\n', 'keep.txt': 'precious original\n' });
    const plan = { goal: 'restore', tasks: [{ id: 'fix', title: 'Fix things', description: 'do it', acceptance: [], dependsOn: [] }] };
    const scenario = { tasks: { fix: { actor: [{ delete: ['keep.txt'], write: { 'garbage.txt': 'garbage\n' }, delayMs: 0 }] } } };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    const result = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--max-attempts', '1', '--gate', 'test -f keep.txt']);
    assert.equal(result.code, 1, 'the gate fails and the task waits for a person');

    const { runId } = runDir(r.dir);
    const engine = await TaskloomEngine.open(r.dir, { command: 'test' });
    try {
      const session = engine.session(runId);
      const task = session.task('fix');
      assert.equal(task.state, 'NEEDS_HUMAN');
      const worktree = task.worktreePath!;
      assert.equal(existsSync(join(worktree, 'keep.txt')), false, 'the attempt deleted it');
      const snapshot = session.state.decisions.find((d) => d.fact.type === 'actor_snapshot')!;
      const restored = await engine.restoreSnapshot(session, snapshot.seq);
      assert.deepEqual(restored, { taskId: 'fix', attempt: 1, worktree, files: ['keep.txt'] });
      assert.equal(readFileSync(join(worktree, 'keep.txt'), 'utf8'), 'precious original\n');
      assert.equal(readFileSync(join(worktree, 'garbage.txt'), 'utf8'), 'garbage\n', 'a file made since stays');
      // Any other entry is refused, saying why.
      const other = session.state.decisions.find((d) => d.fact.type !== 'actor_snapshot')!;
      await assert.rejects(engine.restoreSnapshot(session, other.seq), /is not an actor snapshot/);
    } finally {
      engine.close();
    }
  });

  it('includes staged, unstaged and untracked changes without touching HEAD, the index or the files', async (t) => {
    const r = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n', '.gitignore': 'ignored.txt\n' });
    writeFileSync(join(r.dir, 'a.txt'), 'a changed, unstaged\n');
    writeFileSync(join(r.dir, 'new.txt'), 'untracked\n');
    writeFileSync(join(r.dir, 'ignored.txt'), 'ignored\n');
    writeFileSync(join(r.dir, 'staged.txt'), 'staged\n');
    r.git(['add', 'staged.txt']);
    unlinkSync(join(r.dir, 'b.txt'));
    const head = r.git(['rev-parse', 'HEAD']);
    const status = r.git(['status', '--porcelain']);

    const git = new GitTimer();
    const location: RepoLocation = { root: r.dir, gitCommonDir: join(r.dir, '.git'), gitObserver: git };
    const started = performance.now();
    const snap = await snapshotWorktree(location, r.dir, 'refs/taskloom/r1/t1/attempt-1', 'snapshot');
    t.diagnostic(`snapshot of a small worktree: ${(performance.now() - started).toFixed(1)} ms, ${git.commands} git command(s)`);
    // `config` first: which programs the repository's config names, read once until that config changes.
    assert.deepEqual(git.subcommands, ['config', 'add', 'write-tree', 'commit-tree', 'update-ref']);

    assert.equal(r.git(['rev-parse', 'refs/taskloom/r1/t1/attempt-1']), snap.commit);
    assert.equal(r.git(['rev-parse', `${snap.commit}^`]), head, 'parent is HEAD');
    assert.equal(r.git(['rev-parse', 'HEAD']), head, 'HEAD did not move');
    assert.equal(r.git(['status', '--porcelain']), status, 'index and files untouched');
    const files = r.git(['ls-tree', '-r', '--name-only', snap.commit]).split('\n').sort();
    assert.deepEqual(files, ['.gitignore', 'a.txt', 'new.txt', 'staged.txt']);
    assert.equal(r.git(['show', `${snap.commit}:a.txt`]), 'a changed, unstaged');
    assert.deepEqual(branchesContaining(r, snap.commit), []);

    // Taking it again (as a resumed attempt would) just moves the ref.
    writeFileSync(join(r.dir, 'new.txt'), 'untracked, edited\n');
    const again = await snapshotWorktree(location, r.dir, 'refs/taskloom/r1/t1/attempt-1', 'snapshot');
    assert.notEqual(again.commit, snap.commit);
    assert.equal(r.git(['rev-parse', 'refs/taskloom/r1/t1/attempt-1']), again.commit);
  });
});
