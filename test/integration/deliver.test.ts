import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { runCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/** `taskloom apply` and `taskloom discard` on real repositories: what lands on the user's branch, and what is never lost. */

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const task = (id: string, title: string, dependsOn: string[] = []) => ({ id, title, description: title, acceptance: [], dependsOn });
const plan = {
  goal: 'Add notes',
  tasks: [task('first', 'Write the first note'), task('second', 'Write the second note', ['first']), task('dropped', 'A task that fails')],
};
const finding = { file: 'first.txt', line: 1, severity: 'major', category: 'requirements', message: 'first.txt must say "first"' };
/** The contents of the attempts the gate or the critic turned down: no commit on the user's branch may hold them. */
const DRAFTS = ['draft', 'unreviewed'];
const scenario = {
  defaults: { delayMs: 0 },
  tasks: {
    // Three attempts: the gate fails the first, the critic sends the second back, the third is green.
    first: {
      actor: [{ write: { 'first.txt': 'draft\n' } }, { write: { 'first.txt': 'unreviewed\n' } }, { write: { 'first.txt': 'first\n' } }],
      critic: [{ verdict: { decision: 'changes_required', summary: 'not yet', findings: [finding] } }, { verdict: { decision: 'green', summary: 'fine', findings: [] } }],
    },
    second: { actor: [{ write: { 'second.txt': 'second\n' } }] },
    dropped: { actor: [{ fail: 'cannot' }] },
  },
};

/** A completed run (dropped is skipped by the human), its branches still there. */
function completedRun(): { r: TempRepo; t: TraceReport } {
  const r = makeTempRepo({ files: { 'README.md': '# notes\n' } });
  repos.push(r);
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  const first = runCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'grep -qv draft first.txt 2>/dev/null || test ! -f first.txt', '--parallel', '1']);
  assert.equal(first.code, 1, first.stdout + first.stderr);
  assert.equal(runCli(['skip', 'dropped', '--cwd', r.dir]).code, 0);
  const t = JSON.parse(runCli(['trace', '--json', '--cwd', r.dir]).stdout) as TraceReport;
  assert.equal(t.status, 'completed');
  assert.equal(t.tasks.find((task) => task.id === 'first')!.attempts, 3, 'a failed gate and a send-back before it went green');
  return { r, t };
}

const firstParents = (r: TempRepo, from: string) => r.git(['log', '--first-parent', '--format=%s', `${from}..main`]).split('\n').filter(Boolean);
const commitsIn = (r: TempRepo, range: string) => r.git(['rev-list', range]).split('\n').filter(Boolean);
/** The commits in `range` whose tree holds one of the drafts' contents (git grep exits 1 when none does). */
function commitsHoldingDrafts(r: TempRepo, range: string): string[] {
  const commits = commitsIn(r, range);
  const found = spawnSync('git', ['grep', '-l', ...DRAFTS.flatMap((d) => ['-e', d]), ...commits], { cwd: r.dir, encoding: 'utf8' });
  assert.ok(found.status === 0 || found.status === 1, found.stderr);
  return found.stdout.split('\n').filter(Boolean);
}
/** The number in "Applied to main as N commits". */
const printedCount = (stdout: string) => Number(/Applied to main as (\d+) commits?/.exec(stdout)?.[1]);
/** The agent's attempt commits of a task, oldest first: its branch from the run base. */
const attemptCommits = (r: TempRepo, runId: string, base: string, taskId: string) => commitsIn(r, `${base}..taskloom/${runId}/${taskId}`).reverse();
/** The run's refs that keep `commit` reachable: its branches and snapshot refs. */
const runRefsHolding = (r: TempRepo, runId: string, commit: string) =>
  r.git(['for-each-ref', '--contains', commit, '--format=%(refname)']).split('\n').filter((ref) => ref.startsWith(`refs/heads/taskloom/${runId}/`) || ref.startsWith(`refs/taskloom/${runId}/`));

describe('taskloom apply', () => {
  it('puts one commit per task on the branch, joined by a merge commit, none holding a draft, and says how many it made', () => {
    const { r, t } = completedRun();
    const before = r.git(['rev-parse', 'main']);
    const applied = runCli(['apply', '--yes', '--cwd', r.dir]);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.match(applied.stdout, /Apply run \S+ to main as 3 commits \(merge history: one commit per task, joined to the branch by a merge commit\)/);
    assert.match(applied.stdout, /not included \(skipped\): dropped/);
    assert.match(applied.stdout, /Applied to main as 3 commits \(merge history\)/);
    assert.equal(printedCount(applied.stdout), Number(r.git(['rev-list', '--count', `${before}..main`])), 'the count printed is the count made');
    assert.deepEqual(firstParents(r, before), ['Add notes'], "the branch's own line gains one commit");
    assert.deepEqual(r.git(['log', '--no-merges', '--format=%s', `${before}..main`]).split('\n'), ['Write the second note', 'Write the first note'], 'one commit per task');
    assert.equal(r.git(['rev-parse', 'main^2~2']), before, 'the task commits are built on the run base');
    assert.equal(r.git(['rev-parse', 'main^{tree}']), r.git(['rev-parse', `taskloom/${t.runId}/integration^{tree}`]), 'the tree the integration gate passed');
    assert.deepEqual(commitsHoldingDrafts(r, `${before}..main`), [], "no commit on the branch holds a turned-down attempt's content");
    assert.equal(r.git(['log', '-1', '--format=%(trailers:only)', 'main^2~1']).trim(), `Taskloom-Task: first\nTaskloom-Run: ${t.runId}`, 'its title and its trailers');
    assert.match(r.git(['log', '-1', '--format=%(trailers:only)', 'main']), new RegExp(`Taskloom-Run: ${t.runId}`));
    assert.equal(readFileSync(join(r.dir, 'first.txt'), 'utf8'), 'first\n');
    assert.equal(readFileSync(join(r.dir, 'second.txt'), 'utf8'), 'second\n');

    // The drafts stay with the run until it is discarded.
    const attempts = attemptCommits(r, t.runId, before, 'first');
    assert.equal(attempts.length, 3);
    assert.deepEqual(attempts.map((c) => r.git(['show', `${c}:first.txt`])), ['draft', 'unreviewed', 'first']);
    for (const commit of attempts) assert.notDeepEqual(runRefsHolding(r, t.runId, commit), [], `attempt ${commit} is reachable from the run's refs`);

    const again = runCli(['apply', '--yes', '--cwd', r.dir]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already in main; nothing to apply/);
    assert.deepEqual(firstParents(r, before), ['Add notes'], 'nothing was applied twice');

    assert.equal(runCli(['discard', '--yes', '--cwd', r.dir]).code, 0, 'applied work is known applied');
    for (const commit of attempts) assert.deepEqual(runRefsHolding(r, t.runId, commit), [], 'discarding the run lets its drafts go');
    assert.equal(readFileSync(join(r.dir, 'first.txt'), 'utf8'), 'first\n', 'the applied work stays');
  });

  it('with --squash puts one commit per task on the branch itself, replayed onto it when it moved; the drafts stay with the run', () => {
    const { r, t } = completedRun();
    const base = r.git(['rev-parse', 'main']);
    writeFileSync(join(r.dir, 'NOTES.md'), 'my own work\n');
    r.git(['add', 'NOTES.md']);
    r.git(['commit', '-q', '-m', 'My own commit']);
    const before = r.git(['rev-parse', 'main']);
    const applied = runCli(['apply', '--squash', '--yes', '--cwd', r.dir]);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.match(applied.stdout, /Apply run \S+ to main as 2 commits \(squash history: one commit per task, on the branch itself\)/);
    assert.match(applied.stdout, /Applied to main as 2 commits \(squash history\)/);
    assert.equal(printedCount(applied.stdout), Number(r.git(['rev-list', '--count', `${before}..main`])), 'the count printed is the count made');
    assert.deepEqual(firstParents(r, before), ['Write the second note', 'Write the first note']);
    assert.equal(r.git(['rev-parse', 'main~2']), before, 'on the branch itself: no merge commit');
    assert.equal(r.git(['log', '-1', '--format=%(trailers:only)', 'main~1']).trim(), `Taskloom-Task: first\nTaskloom-Run: ${t.runId}`, 'its title and its trailers');
    assert.deepEqual(commitsHoldingDrafts(r, `${before}..main`), []);
    assert.equal(r.git(['diff', '--name-only', `taskloom/${t.runId}/integration`, 'main']), 'NOTES.md', 'the gated tree, and the user\'s own work');
    assert.equal(readFileSync(join(r.dir, 'first.txt'), 'utf8'), 'first\n');
    const attempts = attemptCommits(r, t.runId, base, 'first');
    assert.equal(attempts.length, 3, 'the attempts stay on the task branch');
    assert.match(runCli(['apply', '--squash', '--yes', '--cwd', r.dir]).stdout, /already in main/);
  });

  it('refuses a dirty tree, a run that is not completed, and, without a terminal, to go ahead without --yes', () => {
    const { r } = completedRun();
    const head = r.git(['rev-parse', 'main']);
    writeFileSync(join(r.dir, 'README.md'), '# my own edit\n');
    const dirty = runCli(['apply', '--yes', '--cwd', r.dir]);
    assert.equal(dirty.code, 2);
    assert.match(dirty.stderr, /uncommitted changes \(README\.md\)/);
    r.git(['checkout', '--', 'README.md']);
    const asked = runCli(['apply', '--cwd', r.dir]);
    assert.equal(asked.code, 2);
    assert.match(asked.stderr, /Pass --yes to apply without a prompt/);
    assert.equal(r.git(['rev-parse', 'main']), head, 'the branch never moved');

    const stuck = makeTempRepo({ files: { 'README.md': '# x\n' } });
    repos.push(stuck);
    const inputs = writeInputs({ 'plan.json': { goal: 'g', tasks: [task('only', 'Only')] }, 'scenario.json': { tasks: { only: { actor: [{ fail: 'no', delayMs: 0 }] } } } });
    runCli(['run', '--cwd', stuck.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true']);
    const refused = runCli(['apply', '--yes', '--cwd', stuck.dir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /is waiting for you, not completed \(not merged yet: only\)/);
  });
});

describe('taskloom discard', () => {
  it('refuses to delete work that was never applied or pushed; --force deletes it all', () => {
    const { r, t } = completedRun();
    const refused = runCli(['discard', '--yes', '--cwd', r.dir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /holds work that was never applied or pushed: first, second/);
    assert.match(refused.stderr, /taskloom apply/);
    assert.ok(r.git(['branch', '--list', `taskloom/${t.runId}/*`]).includes('integration'), 'nothing was removed');

    const forced = runCli(['discard', '--yes', '--force', '--cwd', r.dir]);
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    assert.equal(r.git(['branch', '--list', `taskloom/${t.runId}/*`]), '');
    assert.equal(r.git(['for-each-ref', `refs/taskloom/${t.runId}`]), '', 'snapshot refs are gone');
    assert.ok(!existsSync(join(r.dir, '.taskloom', 'runs', t.runId)));
    assert.match(runCli(['runs', '--cwd', r.dir]).stdout, /No runs yet/);
  });

  it('deletes an applied run without --force, and a pushed one too', () => {
    const { r, t } = completedRun();
    assert.equal(runCli(['apply', '--squash', '--yes', '--cwd', r.dir]).code, 0);
    assert.equal(runCli(['discard', '--yes', '--cwd', r.dir]).code, 0, 'squash-applied work is known applied');

    const { r: other, t: pushed } = completedRun();
    const remote = makeTempRepo({ commit: false });
    repos.push(remote);
    remote.git(['init', '-q', '--bare', join(remote.dir, 'remote.git')]);
    other.git(['remote', 'add', 'origin', join(remote.dir, 'remote.git')]);
    other.git(['push', '-q', 'origin', `taskloom/${pushed.runId}/integration`]);
    other.git(['fetch', '-q', 'origin']);
    const discarded = runCli(['discard', '--yes', '--cwd', other.dir]);
    assert.equal(discarded.code, 0, discarded.stdout + discarded.stderr);
    void t;
  });
});
