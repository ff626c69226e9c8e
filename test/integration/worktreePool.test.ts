import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { AgentRunner, RunnerInput, RunnerResult } from '../../src/engine/agents/runner';
import type { EventOf, RunEvent } from '../../src/engine/domain/events';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../../src/engine/domain/runConfig';
import { ZERO_USAGE } from '../../src/engine/domain/usage';
import { TaskloomEngine } from '../../src/engine/run/engine';
import { WorktreeManager } from '../../src/engine/workspace/worktreeManager';
import { parkedWorktrees } from '../../src/engine/workspace/worktreePool';
import { makeTempRepo } from '../helpers/tempRepo';

/** The worktree pool, with real git: a merged task's worktree is recycled for the next task, never one holding work in flight. */

function setup(t: TestContext) {
  const repo = makeTempRepo({
    files: { 'README.md': '# pool\n', '.gitignore': 'node_modules/\ndist/\n', 'package-lock.json': '{"v":1}\n' },
  });
  t.after(() => repo.cleanup());
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), '.taskloom/\n');
  const info = { root: repo.dir, gitCommonDir: join(repo.dir, '.git') };
  const manager = new WorktreeManager(info, 'r1');
  return { repo, manager, base: repo.git(['rev-parse', 'HEAD']) };
}

describe('worktree pool', () => {
  test('a merged worktree is parked and recycled: its work does not leak, ignored setup outputs stay, and go when the lockfile changes', async (t) => {
    const { repo, manager, base } = setup(t);
    const a = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });
    writeFileSync(join(a.path, 'a.txt'), 'work of a\n');
    writeFileSync(join(a.path, 'README.md'), '# changed by a\n');
    mkdirSync(join(a.path, 'node_modules'));
    writeFileSync(join(a.path, 'node_modules', 'dep.js'), 'installed\n');
    const committed = await manager.commitAll(a.path, 'a: work');
    assert.ok(committed);

    // Merged (its tip is in the integration head) and clean: parked, not removed.
    assert.equal(await manager.removeMergedTaskWorktree('a', committed.commit, { poolSize: 2 }), null);
    assert.ok(!existsSync(a.path));
    assert.equal(parkedWorktrees(manager.worktreeDir).length, 1);
    assert.equal(repo.git(['rev-parse', 'taskloom/r1/a']), committed.commit, 'the merged branch stays');

    // b starts from the base (without a's work): a's files are gone, its ignored install stays.
    const b = await manager.prepareTaskWorktree({ taskId: 'b', startCommit: base, fresh: true });
    assert.deepEqual(b.recycled, { fromTaskId: 'a', setupInputsChanged: false });
    assert.equal(b.path, join(repo.dir, '.taskloom', 'worktrees', 'r1', 'b'));
    assert.ok(!existsSync(join(b.path, 'a.txt')), "a's committed file does not leak into b");
    assert.equal(readFileSync(join(b.path, 'README.md'), 'utf8'), '# pool\n');
    assert.equal(readFileSync(join(b.path, 'node_modules', 'dep.js'), 'utf8'), 'installed\n', 'ignored setup output survives');
    assert.equal(repo.git(['-C', b.path, 'rev-parse', '--abbrev-ref', 'HEAD']), 'taskloom/r1/b');
    assert.equal(repo.git(['-C', b.path, 'status', '--porcelain']), '');
    assert.equal(parkedWorktrees(manager.worktreeDir).length, 0);

    // b changes the lockfile; c recycles b's worktree from a start that has it: the install is stale, so it goes.
    writeFileSync(join(b.path, 'package-lock.json'), '{"v":2}\n');
    const bWork = await manager.commitAll(b.path, 'b: bump the lockfile');
    assert.ok(bWork);
    assert.equal(await manager.removeMergedTaskWorktree('b', bWork.commit, { poolSize: 2 }), null);
    const c = await manager.prepareTaskWorktree({ taskId: 'c', startCommit: bWork.commit, fresh: true });
    assert.deepEqual(c.recycled, { fromTaskId: 'b', setupInputsChanged: true }, 'compared with the commit the setup ran on, not b’s tip');
    assert.ok(!existsSync(join(c.path, 'node_modules')), 'a stale install is cleaned for the setup to run again');
  });

  test('never parks work that is not merged or not committed, and keeps the pool within its size', async (t) => {
    const { manager, base } = setup(t);
    const green = await manager.prepareTaskWorktree({ taskId: 'green', startCommit: base, fresh: true });
    writeFileSync(join(green.path, 'g.txt'), 'approved, not merged\n');
    const gWork = await manager.commitAll(green.path, 'green: work');
    assert.ok(gWork);
    assert.equal(await manager.removeMergedTaskWorktree('green', base, { poolSize: 4 }), 'work not merged into integration');
    assert.ok(existsSync(join(green.path, 'g.txt')));

    const dirty = await manager.prepareTaskWorktree({ taskId: 'dirty', startCommit: base, fresh: true });
    writeFileSync(join(dirty.path, 'left.txt'), 'uncommitted\n');
    assert.equal(await manager.removeMergedTaskWorktree('dirty', base, { poolSize: 4 }), 'uncommitted changes in the worktree');
    assert.equal(parkedWorktrees(manager.worktreeDir).length, 0);

    // Three task checkouts with a pool of 2: the merged one is removed rather than parked.
    const merged = await manager.prepareTaskWorktree({ taskId: 'merged', startCommit: base, fresh: true });
    assert.equal(await manager.removeMergedTaskWorktree('merged', base, { poolSize: 2 }), null);
    assert.ok(!existsSync(merged.path));
    assert.equal(parkedWorktrees(manager.worktreeDir).length, 0);

    // A new task never takes a worktree that holds work: with nothing parked it gets a new one.
    const next = await manager.prepareTaskWorktree({ taskId: 'next', startCommit: base, fresh: true });
    assert.equal(next.recycled, undefined);
    assert.ok(existsSync(join(green.path, 'g.txt')) && existsSync(join(dirty.path, 'left.txt')));
  });

  test('a parked worktree a crash left half moved is dropped, and the task gets a clean checkout', async (t) => {
    const { repo, manager, base } = setup(t);
    const a = await manager.prepareTaskWorktree({ taskId: 'a', startCommit: base, fresh: true });
    assert.equal(await manager.removeMergedTaskWorktree('a', base, { poolSize: 2 }), null);
    const [parked] = parkedWorktrees(manager.worktreeDir);
    // git's record of the worktree is gone (as after a crash mid-move): the folder is a stray.
    repo.git(['worktree', 'remove', '--force', parked!]);
    mkdirSync(parked!, { recursive: true });
    writeFileSync(join(parked!, 'junk.txt'), 'x\n');
    const b = await manager.prepareTaskWorktree({ taskId: 'b', startCommit: base, fresh: true });
    assert.equal(b.recycled, undefined);
    assert.ok(!existsSync(join(b.path, 'junk.txt')));
    assert.equal(repo.git(['-C', b.path, 'status', '--porcelain']), '');
    assert.equal(parkedWorktrees(manager.worktreeDir).length, 0);
    void a;
  });

  test('a run recycles merged worktrees, keeps setup outputs while the lockfile is unchanged, and stays within maxParallel checkouts', async (t) => {
    const { repo } = setup(t);
    const checkoutsSeen: number[] = [];
    const runner: AgentRunner = {
      name: 'test-instant',
      async run(input: RunnerInput): Promise<RunnerResult> {
        if (input.role === 'actor') {
          const runDir = join(input.cwd, '..');
          const pool = join(runDir, '@pool');
          const names = readdirSync(runDir).filter((n) => n !== '@pool' && n !== '@integration');
          checkoutsSeen.push(names.length + (existsSync(pool) ? readdirSync(pool).length : 0));
          await writeFile(join(input.cwd, `out-${input.taskId}.txt`), `work of ${input.taskId}\n`);
          if (input.taskId === 't2') await writeFile(join(input.cwd, 'package-lock.json'), '{"v":2}\n');
        }
        const text = input.role === 'critic' ? JSON.stringify({ decision: 'green', summary: 'fine', findings: [] }) : 'done';
        return { status: 'ok', text, usage: { ...ZERO_USAGE }, model: 'test', durationMs: 0 };
      },
    };
    const engine = await TaskloomEngine.open(repo.dir, { command: 'test', createRunner: () => runner });
    t.after(() => engine.close());
    const agent = { kind: 'scripted', scriptPath: '/dev/null' } as const;
    const config: RunConfig = {
      ...DEFAULT_RUN_CONFIG,
      maxParallel: 2,
      gateCommands: ['true'],
      agent,
      worktree: { copy: [], setup: ['mkdir -p node_modules && echo ran >> node_modules/setup-runs'] },
    };
    const ids = ['t0', 't1', 't2', 't3', 't4', 't5'];
    const plan = { goal: 'pool', tasks: ids.map((id) => ({ id, title: id, description: id, acceptance: [], dependsOn: [] })) };
    const session = engine.createRun(plan, config);
    const events: RunEvent[] = [];
    session.onEvent((e) => events.push(e));
    engine.approvePlan(session, 'autopilot');
    assert.equal(await engine.drive(session, new AbortController().signal), 'completed');

    const prepared = events.filter((e): e is EventOf<'worktree_prepared'> => e.type === 'worktree_prepared');
    const recycled = prepared.filter((e) => e.recycledFrom !== undefined);
    assert.ok(recycled.length >= 3, `most tasks recycle a worktree (${recycled.length} of ${prepared.length})`);
    const setups = events.filter((e) => e.type === 'worktree_setup').map((e) => (e as EventOf<'worktree_setup'>).taskId);
    const kept = recycled.filter((e) => e.setupKept).map((e) => e.taskId);
    assert.ok(kept.length > 0, 'a recycled worktree with the same lockfile keeps its install');
    for (const id of kept) assert.ok(!setups.includes(id), `${id}'s setup did not run again`);
    // t2 changed the lockfile: a worktree recycled after its merge from a start holding it runs its setup again.
    const t2Merged = events.findIndex((e) => e.type === 'merge_done' && e.taskId === 't2');
    const after = recycled.filter((e) => events.indexOf(e) > t2Merged);
    assert.ok(after.length > 0, "t2's own worktree is recycled after its merge");
    for (const e of after) assert.ok(!e.setupKept && setups.includes(e.taskId), `${e.taskId} ran its setup again`);
    assert.ok(Math.max(...checkoutsSeen) <= config.maxParallel, `at most maxParallel task checkouts (${checkoutsSeen.join(',')})`);
    const runDir = join(repo.dir, '.taskloom', 'worktrees', session.runId);
    assert.deepEqual(existsSync(runDir) ? readdirSync(runDir) : [], [], 'the pool is drained at the end');
  });
});
