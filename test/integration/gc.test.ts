import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/** `taskloom runs` shows the disk a run's worktrees take; `taskloom gc` frees what finished runs left, never unapplied work. */

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const task = (id: string, title: string) => ({ id, title, description: title, acceptance: [], dependsOn: [] });
const plan = { goal: 'Add a note', tasks: [task('first', 'Write the first note'), task('dropped', 'A task that fails')] };
const scenario = {
  defaults: { delayMs: 0 },
  tasks: { first: { actor: [{ write: { 'first.txt': 'first\n' } }] }, dropped: { actor: [{ fail: 'cannot' }] } },
};

interface RunRow {
  runId: string;
  status: string;
  diskBytes: number;
}

const runsJson = (r: TempRepo): RunRow[] => JSON.parse(runCli(['runs', '--json', '--cwd', r.dir]).stdout) as RunRow[];
const branches = (r: TempRepo, runId: string) => r.git(['branch', '--list', `taskloom/${runId}/*`]).split('\n').filter(Boolean);

describe('taskloom runs and gc', () => {
  it('shows the disk a run holds, leaves unfinished runs and unapplied work alone, and frees an applied run', () => {
    const r = makeTempRepo({ files: { 'README.md': '# notes\n' } });
    repos.push(r);
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    const first = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--parallel', '1']);
    assert.equal(first.code, 1, first.stdout + first.stderr);
    const { runId } = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;

    // needs_human: the failed task's worktree stays for the person, and its size shows.
    const [waiting] = runsJson(r);
    assert.equal(waiting!.status, 'needs_human');
    assert.ok(waiting!.diskBytes > 0, 'the worktree kept for the person takes space');
    const listed = runCli(['runs', '--cwd', r.dir]);
    assert.match(listed.stdout, /disk/);
    assert.match(listed.stdout, /\d+(\.\d)? (KiB|MiB)/);
    const early = runCli(['gc', '--yes', '--cwd', r.dir]);
    assert.equal(early.code, 0, early.stdout + early.stderr);
    assert.match(early.stdout, /Nothing to collect/);
    assert.ok(existsSync(join(r.dir, '.taskloom', 'worktrees', runId, 'dropped')), 'an unfinished run is never touched');

    // Completed but not applied: the merged work exists only in the run's branches.
    assert.equal(runCli(['skip', 'dropped', '--cwd', r.dir]).code, 0);
    const refused = runCli(['gc', '--yes', '--cwd', r.dir]);
    assert.equal(refused.code, 0, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /Kept/);
    assert.match(refused.stdout, /never applied or pushed \(first\)/);
    assert.ok(branches(r, runId).length > 0, 'unapplied work keeps its branches');

    // Applied: everything the run left can go. A worktree left in its folder and a stale entry are freed too.
    assert.equal(runCli(['apply', '--yes', '--cwd', r.dir]).code, 0);
    r.git(['worktree', 'add', '-q', '--detach', join(r.dir, '.taskloom', 'worktrees', runId, 'leftover'), 'HEAD']);
    const stale = join(r.dir, '.taskloom', 'stale-wt');
    r.git(['worktree', 'add', '-q', '--detach', stale, 'HEAD']);
    rmSync(stale, { recursive: true, force: true });
    assert.ok(runsJson(r)[0]!.diskBytes > 0);

    const dry = runCli(['gc', '--dry-run', '--cwd', r.dir]);
    assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    assert.match(dry.stdout, /Would free \d+(\.\d)? (B|KiB|MiB): 1 worktree, \d+ branch(es)?/);
    assert.ok(branches(r, runId).length > 0, 'a dry run removes nothing');

    const freed = runCli(['gc', '--yes', '--cwd', r.dir]);
    assert.equal(freed.code, 0, freed.stdout + freed.stderr);
    assert.match(freed.stdout, /Freed \d+(\.\d)? (KiB|MiB): 1 worktree, \d+ branch(es)?, \d+ snapshot refs? of 1 run, 1 stale worktree entry/);
    assert.deepEqual(branches(r, runId), []);
    assert.equal(r.git(['for-each-ref', `refs/taskloom/${runId}`]), '');
    assert.ok(!existsSync(join(r.dir, '.taskloom', 'worktrees', runId)));
    assert.doesNotMatch(r.git(['worktree', 'list', '--porcelain']), /stale-wt|taskloom\/worktrees/);
    const [kept] = runsJson(r);
    assert.equal(kept!.runId, runId, 'the record stays: runs and trace still show it');
    assert.equal(kept!.diskBytes, 0);
    assert.match(runCli(['gc', '--yes', '--cwd', r.dir]).stdout, /Nothing to collect/);
  });
});
