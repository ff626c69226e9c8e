import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { AgentRunner, RunnerInput, RunnerResult } from '../../src/engine/agents/runner';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../../src/engine/domain/runConfig';
import { ZERO_USAGE } from '../../src/engine/domain/usage';
import { TaskloomEngine } from '../../src/engine/run/engine';
import { runCli } from '../helpers/cli';
import { green, runScripted, task, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

/**
 * Programs an agent plants in the repository's git directory (hooks, fsmonitor, filter, merge and
 * diff drivers, through `.git/config`, a worktree's `config.worktree` and an included file): a
 * whole run with real git commits, merges, recycles worktrees and diffs, and none of them runs.
 * The user's own hooks still run when they apply the run to their branch.
 */

const HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge', 'post-checkout', 'reference-transaction', 'post-rewrite', 'pre-push'];

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function repo(files: Record<string, string>): TempRepo {
  const r = makeTempRepo({ files });
  cleanups.push(r.cleanup);
  return r;
}

/**
 * A script that records that it ran as `name` in `markers` and exits; a clean or smudge filter
 * passes its input on first (that filter's contract), so a git that runs it still finishes.
 */
function markerScript(bin: string, markers: string, name: string): string {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\necho "$0 $*" >> '${join(markers, name)}'\n${/(clean|smudge)$/.test(name) ? 'cat\n' : ''}`);
  chmodSync(path, 0o755);
  return path;
}

/** What ran: one file per planted program that was started. */
function ran(markers: string): string[] {
  return readdirSync(markers);
}

function gitIn(dir: string, args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

/**
 * Plants every program from `dir` (the task's worktree, or the main checkout before the run) the
 * way a process there could: hooks in the common git dir, keys in its config, an included file,
 * and keys in the worktree's own config.worktree.
 */
function plant(dir: string, markers: string): void {
  const bin = tempDir('taskloom-planted-');
  const commonDir = join(dir, gitIn(dir, ['rev-parse', '--git-common-dir']));
  mkdirSync(join(commonDir, 'hooks'), { recursive: true });
  for (const hook of HOOKS) writeFileSync(join(commonDir, 'hooks', hook), readFileSync(markerScript(bin, markers, hook)));
  for (const hook of HOOKS) chmodSync(join(commonDir, 'hooks', hook), 0o755);
  const config = (...args: string[]) => gitIn(dir, ['config', ...args]);
  config('core.fsmonitor', markerScript(bin, markers, 'fsmonitor'));
  config('filter.planted.clean', markerScript(bin, markers, 'filter-clean'));
  config('filter.planted.smudge', markerScript(bin, markers, 'filter-smudge'));
  config('filter.planted.required', 'true');
  config('merge.planted.driver', `${markerScript(bin, markers, 'merge-driver')} %O %A %B`);
  config('diff.external', markerScript(bin, markers, 'diff-external'));
  config('diff.planted.textconv', markerScript(bin, markers, 'textconv'));
  config('diff.planted.command', markerScript(bin, markers, 'diff-command'));
  const included = join(bin, 'included.cfg');
  writeFileSync(included, `[filter "included"]\n\tclean = ${markerScript(bin, markers, 'included-clean')}\n\tsmudge = ${markerScript(bin, markers, 'included-smudge')}\n`);
  config('--add', 'include.path', included);
  config('extensions.worktreeConfig', 'true');
  config('--worktree', 'filter.worktree.clean', markerScript(bin, markers, 'worktree-clean'));
  config('--worktree', 'filter.worktree.process', markerScript(bin, markers, 'worktree-process'));
}

const ATTRIBUTES = '* filter=planted diff=planted merge=planted\n*.inc filter=included\n*.wt filter=worktree\n';
const SHARED = 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n';

/** An agent that writes the task's file; the first task also plants (when asked) and commits the attributes that select the drivers. */
function agent(markers: string, plantDuringRun: boolean): AgentRunner {
  return {
    name: 'planting-agent',
    async run(input: RunnerInput): Promise<RunnerResult> {
      if (input.role === 'actor') {
        const file = (name: string, content: string) => writeFileSync(join(input.cwd, name), content);
        if (input.taskId === 'plant') {
          if (plantDuringRun) plant(input.cwd, markers);
          file('.gitattributes', ATTRIBUTES);
          file('shared.txt', SHARED);
          file('x.inc', 'included\n');
          file('x.wt', 'worktree\n');
        }
        // Both edit shared.txt, on lines apart: the second merge is a real three-way content merge.
        if (input.taskId === 'top') file('shared.txt', readFileSync(join(input.cwd, 'shared.txt'), 'utf8').replace('line 1', 'top'));
        if (input.taskId === 'bottom') file('shared.txt', readFileSync(join(input.cwd, 'shared.txt'), 'utf8').replace('line 6', 'bottom'));
        if (input.taskId === 'last') file('last.txt', 'last\n');
      }
      const text = input.role === 'critic' ? JSON.stringify({ decision: 'green', summary: 'fine', findings: [] }) : 'done';
      return { status: 'ok', text, usage: { ...ZERO_USAGE }, model: 'test', durationMs: 0 };
    },
  };
}

async function runWithPlantedPrograms(plantBefore: boolean): Promise<{ repo: TempRepo; markers: string }> {
  const r = repo({ 'README.md': '# planted\n' });
  const markers = tempDir('taskloom-markers-');
  if (plantBefore) plant(r.dir, markers);
  const engine = await TaskloomEngine.open(r.dir, { command: 'test', createRunner: () => agent(markers, !plantBefore) });
  try {
    const config: RunConfig = { ...DEFAULT_RUN_CONFIG, maxParallel: 2, gateCommands: ['true'], agent: { kind: 'scripted', scriptPath: '/dev/null' } };
    const plan = {
      goal: 'planted programs',
      tasks: [task('plant'), task('top', ['plant']), task('bottom', ['plant']), task('last', ['top', 'bottom'])],
    };
    const session = engine.createRun(plan, config);
    engine.approvePlan(session, 'autopilot');
    assert.equal(await engine.drive(session, new AbortController().signal), 'completed', JSON.stringify(Object.values(session.state.tasks).map((t) => [t.id, t.state, t.lastReason])));
    assert.ok(session.state.integration.branch);
    const merged = gitIn(r.dir, ['show', `${session.state.integration.branch}:shared.txt`]);
    assert.equal(merged, SHARED.replace('line 1', 'top').replace('line 6', 'bottom').trimEnd(), 'both edits merged, as git merges text');
    assert.ok(Object.values(session.state.tasks).some((t) => t.id === 'last' && t.state === 'MERGED'));
  } finally {
    await engine.close();
  }
  return { repo: r, markers };
}

describe("Taskloom's own git runs no program planted in the repository", () => {
  test('planted by an agent from inside its worktree during the run: the run merges and none of them ran', async () => {
    const { markers } = await runWithPlantedPrograms(false);
    assert.deepEqual(ran(markers), []);
  });

  test('planted in the common git dir before the run: the run merges and none of them ran', async () => {
    const { repo: r, markers } = await runWithPlantedPrograms(true);
    assert.deepEqual(ran(markers), []);
    // Proof that they are live: the same repository's own git runs them.
    gitIn(r.dir, ['status']);
    assert.ok(ran(markers).includes('fsmonitor'), `git itself runs the planted fsmonitor (${ran(markers).join(', ')})`);
  });

  test('a task worktree whose .git an agent replaced with a repository of its own needs a human, and nothing is committed into it', async () => {
    const r = repo({ 'README.md': '# pointer\n' });
    let worktree = '';
    const swapping: AgentRunner = {
      name: 'swapping-agent',
      async run(input: RunnerInput): Promise<RunnerResult> {
        if (input.role === 'actor') {
          worktree = input.cwd;
          writeFileSync(join(input.cwd, 'work.txt'), 'work\n');
          rmSync(join(input.cwd, '.git'));
          gitIn(input.cwd, ['init', '-q', '.']);
          gitIn(input.cwd, ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'own']);
        }
        const text = input.role === 'critic' ? JSON.stringify({ decision: 'green', summary: 'fine', findings: [] }) : 'done';
        return { status: 'ok', text, usage: { ...ZERO_USAGE }, model: 'test', durationMs: 0 };
      },
    };
    const engine = await TaskloomEngine.open(r.dir, { command: 'test', createRunner: () => swapping });
    try {
      const session = engine.createRun({ goal: 'swap', tasks: [task('swap')] }, { ...DEFAULT_RUN_CONFIG, gateCommands: ['true'], agent: { kind: 'scripted', scriptPath: '/dev/null' } });
      engine.approvePlan(session, 'autopilot');
      await engine.drive(session, new AbortController().signal);
      const swapped = session.state.tasks.swap!;
      assert.equal(swapped.state, 'NEEDS_HUMAN');
      assert.match(swapped.lastReason, /\.git is a folder/);
    } finally {
      await engine.close();
    }
    assert.equal(gitIn(worktree, ['log', '--format=%s']), 'own', "nothing was committed into the agent's repository");
  });
});

describe('taskloom apply runs the user’s own hooks on their branch', () => {
  test('merge: pre-commit (the task\'s commit), pre-merge-commit and post-merge run; squash: pre-commit and post-merge', () => {
    for (const squash of [false, true]) {
      const r = repo({ 'README.md': '# apply\n' });
      const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] } } };
      assert.equal(runScripted(r.dir, { goal: 'apply', tasks: [task('a')] }, scenario, '--gate', 'true').code, 0);
      const markers = tempDir('taskloom-user-hooks-');
      const bin = tempDir('taskloom-user-bin-');
      for (const hook of ['pre-commit', 'pre-merge-commit', 'post-merge']) {
        writeFileSync(join(r.dir, '.git', 'hooks', hook), readFileSync(markerScript(bin, markers, hook)));
        chmodSync(join(r.dir, '.git', 'hooks', hook), 0o755);
      }
      const applied = runCli(['apply', ...(squash ? ['--squash'] : []), '--yes', '--cwd', r.dir]);
      assert.equal(applied.code, 0, applied.stdout + applied.stderr);
      assert.ok(existsSync(join(r.dir, 'a.txt')));
      assert.deepEqual(ran(markers).sort(), squash ? ['post-merge', 'pre-commit'] : ['post-merge', 'pre-commit', 'pre-merge-commit']);
    }
  });
});
