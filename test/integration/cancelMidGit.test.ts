import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT } from '../../src/engine/domain/taskloomError';
import { blockingGit, type BlockingGit } from '../helpers/blockingGit';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { green, task, trace, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

// A Ctrl-C in the terminal reaches every process in the CLI's group, so the git a run is running
// dies mid-command while the engine cancels the run. Each case stops git at one moment and checks
// that the run says cancelled (what the user did), that no task blames git for it, and that the
// run can be resumed to its end.

const repos: TempRepo[] = [];
const gits: BlockingGit[] = [];
after(() => {
  repos.forEach((r) => r.cleanup());
  gits.forEach((g) => g.cleanup());
});

const plan = { goal: 'one task', tasks: [task('a')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] } } };

/** Runs the plan with git blocked at the command `pattern` matches, presses Ctrl-C there, and returns the run's trace. */
async function cancelAt(pattern: string, afterPath?: (repo: string) => string) {
  const r = makeTempRepo();
  repos.push(r);
  const git = blockingGit(pattern, afterPath?.(r.dir));
  gits.push(git);
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  const run = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true'], git.env);
  await Promise.race([
    git.blocked(),
    run.done.then((end) => assert.fail(`the run ended before git got there:\n${end.stdout}${end.stderr}`)),
  ]);
  process.kill(-run.child.pid!, 'SIGINT');
  const end = await run.done;
  assert.equal(end.code, EXIT.needsHuman, end.stdout + end.stderr);
  const cancelled = trace(r.dir);
  assert.equal(cancelled.status, 'cancelled');
  return { repo: r, cancelled };
}

/** No task of the run went to a person over what the cancel did to git. */
function assertNoTaskBlamedGit(cancelled: TraceReport): void {
  assert.deepEqual(cancelled.tasks.flatMap((t) => t.transitions.filter((x) => x.to === 'NEEDS_HUMAN').map((x) => x.reason)), []);
}

function assertResumesToTheEnd(dir: string, runId: string): void {
  const resumed = runCli(['resume', runId, '--cwd', dir]);
  assert.equal(resumed.code, EXIT.ok, resumed.stdout + resumed.stderr);
  assert.deepEqual(trace(dir).tasks.map((t) => t.state), ['MERGED']);
}

describe('a Ctrl-C that interrupts git', () => {
  it('while a task starts (its start commit is read, its worktree not yet made) cancels the task', async () => {
    const integrationHead = 'rev-parse --quiet --verify refs/heads/taskloom/[^ ]+/integration';
    // After the integration worktree exists, the next read of the branch is the task's start.
    const { repo, cancelled } = await cancelAt(integrationHead, (dir) => join(dir, '.taskloom', 'worktrees', '*', '@integration'));
    assert.deepEqual(cancelled.tasks.map((t) => [t.state, t.lastReason]), [['CANCELLED', 'the run was cancelled']]);
    assertNoTaskBlamedGit(cancelled);
    assertResumesToTheEnd(repo.dir, cancelled.runId);
  });

  it("while the task's worktree is being added cancels the task", async () => {
    const { repo, cancelled } = await cancelAt('worktree add -q -B taskloom/[^ ]+/a ');
    assert.deepEqual(cancelled.tasks.map((t) => t.state), ['CANCELLED']);
    assertNoTaskBlamedGit(cancelled);
    assertResumesToTheEnd(repo.dir, cancelled.runId);
  });

  it('while the integration worktree is being made ends the run cancelled before any task started', async () => {
    const { repo, cancelled } = await cancelAt('worktree add -q --detach ');
    assert.deepEqual(cancelled.tasks.map((t) => [t.state, t.lastReason]), [['CANCELLED', 'the run was cancelled before this task started']]);
    assertResumesToTheEnd(repo.dir, cancelled.runId);
  });

  it('while the merge queue merges puts the approved work back in the queue', async () => {
    const { repo, cancelled } = await cancelAt('merge --no-ff ');
    assert.deepEqual(cancelled.tasks.map((t) => t.state), ['GREEN']);
    assertNoTaskBlamedGit(cancelled);
    assertResumesToTheEnd(repo.dir, cancelled.runId);
  });
});
