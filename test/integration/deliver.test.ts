import assert from 'node:assert/strict';
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
const scenario = {
  defaults: { delayMs: 0 },
  tasks: {
    // Two attempts: the attempt commits stay on the task branch; squash history shows one commit.
    first: { actor: [{ write: { 'first.txt': 'draft\n' } }, { write: { 'first.txt': 'first\n' } }] },
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
  return { r, t };
}

const firstParents = (r: TempRepo, from: string) => r.git(['log', '--first-parent', '--format=%s', `${from}..main`]).split('\n').filter(Boolean);

describe('taskloom apply', () => {
  it('merges a completed run as one merge commit, names what it leaves out, and says so when it was applied already', () => {
    const { r, t } = completedRun();
    const before = r.git(['rev-parse', 'main']);
    const applied = runCli(['apply', '--yes', '--cwd', r.dir]);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.match(applied.stdout, /not included \(skipped\): dropped/);
    assert.match(applied.stdout, /Applied to main as 1 commit/);
    assert.deepEqual(firstParents(r, before), ['Add notes']);
    assert.match(r.git(['log', '-1', '--format=%(trailers:only)', 'main']), new RegExp(`Taskloom-Run: ${t.runId}`));
    assert.equal(readFileSync(join(r.dir, 'first.txt'), 'utf8'), 'first\n');
    assert.equal(readFileSync(join(r.dir, 'second.txt'), 'utf8'), 'second\n');

    const again = runCli(['apply', '--yes', '--cwd', r.dir]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already in main; nothing to apply/);
    assert.deepEqual(firstParents(r, before), ['Add notes'], 'nothing was applied twice');
  });

  it('with --squash puts one commit per task on the branch, titled by the task; the attempt commits stay on the task branch', () => {
    const { r, t } = completedRun();
    const before = r.git(['rev-parse', 'main']);
    const applied = runCli(['apply', '--squash', '--yes', '--cwd', r.dir]);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.deepEqual(firstParents(r, before), ['Write the second note', 'Write the first note']);
    assert.equal(r.git(['rev-list', '--count', `${before}..main`]), '2', 'no merges, no attempt commits');
    assert.match(r.git(['log', '-1', '--format=%(trailers:only)', 'main~1']), new RegExp(`Taskloom-Task: first\\nTaskloom-Run: ${t.runId}`));
    assert.equal(r.git(['rev-list', '--count', `${before}..taskloom/${t.runId}/first`]), '2', 'both attempts are on the task branch');
    assert.equal(readFileSync(join(r.dir, 'first.txt'), 'utf8'), 'first\n');
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
