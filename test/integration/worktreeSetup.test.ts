import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { scratchFolder, tempRepos } from '../helpers/fileScoped';
import { green, runEvents, runScripted, task, trace, write } from '../helpers/scriptedRun';

// Worktree setup end to end: the built CLI, real git, real npm, a real Python venv and pytest.

const repo = tempRepos();
const scratchRoot = scratchFolder('setup').dir;
const scratch = (): string => mkdtempSync(join(scratchRoot, 'case-'));

const events = runEvents;

const setups = (dir: string) => events(dir).filter((e): e is Extract<RunEvent, { type: 'worktree_setup' }> => e.type === 'worktree_setup');
const ledger = (dir: string) => readFileSync(join(dir, '.taskloom', 'runs', trace(dir).runId, 'DECISIONS.md'), 'utf8');

// The gates here check the work still to be done (`test -f done.txt`): failing on the base is what they are for.
const run = (dir: string, plan: object, scenario: object, ...flags: string[]) => runScripted(dir, plan, scenario, ...flags, '--on-base-failure', 'required');

const hasPytest = spawnSync('python3', ['-c', 'import pytest, venv, ensurepip'], { stdio: 'ignore' }).status === 0;

describe('worktree setup (taskloom run, real processes)', () => {
  it('makes a Python venv in each new worktree, and the gate runs pytest from it', { skip: !hasPytest && 'python3 with pytest and venv is not installed' }, () => {
    const r = repo({
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
      '.gitignore': '.venv/\n__pycache__/\n.pytest_cache/\n',
    });
    const plan = { goal: 'fix add', tasks: [task('fix-add')] };
    const scenario = { tasks: { 'fix-add': { actor: [write({ 'calc.py': 'def add(a, b):\n    return a + b\n' })], critic: [green] } } };
    const result = run(r.dir, plan, scenario, '--setup', 'python3 -m venv --system-site-packages .venv', '--gate', '.venv/bin/python -m pytest -q');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    const [setup] = setups(r.dir);
    assert.equal(setup?.passed, true);
    assert.deepEqual(setup?.commands.map((c) => [c.command, c.exitCode]), [['python3 -m venv --system-site-packages .venv', 0]]);
    const gate = events(r.dir).find((e) => e.type === 'gate_result' && e.taskId === 'fix-add');
    assert.match(gate?.type === 'gate_result' ? gate.commands[0]!.output : '', /1 passed/);
    assert.equal(r.git(['ls-tree', '-r', '--name-only', trace(r.dir).tasks[0]!.branch!]).includes('.venv'), false, 'the venv is never committed');
  });

  it('installs a dependency a task added, in the worktrees of the tasks built on it and in the integration worktree', () => {
    const lock = (deps: boolean) =>
      `${JSON.stringify(
        {
          name: 'app',
          version: '1.0.0',
          lockfileVersion: 3,
          requires: true,
          packages: {
            '': { name: 'app', version: '1.0.0', ...(deps ? { dependencies: { 'left-pad': 'file:vendor/left-pad' } } : {}) },
            ...(deps ? { 'node_modules/left-pad': { resolved: 'vendor/left-pad', link: true }, 'vendor/left-pad': { version: '1.0.0' } } : {}),
          },
        },
        null,
        2,
      )}\n`;
    const manifest = (deps: boolean) =>
      `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, ...(deps ? { dependencies: { 'left-pad': 'file:vendor/left-pad' } } : {}) }, null, 2)}\n`;
    const r = repo({
      'package.json': manifest(false),
      'package-lock.json': lock(false),
      'vendor/left-pad/package.json': '{ "name": "left-pad", "version": "1.0.0", "main": "index.js" }\n',
      'vendor/left-pad/index.js': 'module.exports = (s, n) => String(s).padStart(n);\n',
      // The gate runs use.js once a task wrote it: it needs left-pad installed.
      'check.js': "if (require('node:fs').existsSync('use.js')) require('./use.js');\n",
      '.gitignore': 'node_modules/\n',
    });
    const plan = { goal: 'pad', tasks: [task('add-dep'), task('use-dep', ['add-dep'])] };
    const scenario = {
      tasks: {
        'add-dep': { actor: [write({ 'package.json': manifest(true), 'package-lock.json': lock(true) })], critic: [green] },
        'use-dep': { actor: [write({ 'use.js': "if (require('left-pad')('a', 3) !== '  a') process.exit(1);\n" })], critic: [green] },
      },
    };
    const result = run(r.dir, plan, scenario, '--setup', 'npm ci --prefer-offline --no-audit --no-fund', '--gate', 'node check.js');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(trace(r.dir).tasks.map((t) => t.state), ['MERGED', 'MERGED']);
    assert.equal(existsSync(join(r.dir, 'node_modules')), false, 'nothing resolved from the main checkout: it has no node_modules');
    assert.deepEqual(setups(r.dir).map((s) => [s.taskId, s.passed]), [['add-dep', true], ['use-dep', true]]);
    const integrationGates = events(r.dir).filter((e) => e.type === 'gate_result' && e.taskId === null);
    assert.ok(integrationGates.length > 0);
    for (const g of integrationGates) {
      if (g.type !== 'gate_result') continue;
      assert.deepEqual(g.commands.map((c) => c.command), ['npm ci --prefer-offline --no-audit --no-fund', 'node check.js'], 'the integration worktree is set up for each commit it gates');
    }
  });

  it('copies the untracked files .worktreeinclude and --copy name, only those git ignores, and never commits them', () => {
    const r = repo({ '.gitignore': '.env\nlocal/\n', '.worktreeinclude': '# local secrets\n.env\n' });
    writeFileSync(join(r.dir, '.env'), 'FEATURE_FLAG=on\n');
    writeFileSync(join(r.dir, 'notes.txt'), 'my own notes, untracked and not ignored\n');
    const plan = { goal: 'env', tasks: [task('uses-env')] };
    const scenario = { tasks: { 'uses-env': { actor: [write({ 'feature.txt': 'on\n' })], critic: [green] } } };
    const result = run(r.dir, plan, scenario, '--copy', 'notes.txt', '--gate', 'grep -q FEATURE_FLAG=on .env');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const [setup] = setups(r.dir);
    assert.deepEqual(setup?.copied, ['.env']);
    assert.deepEqual(setup?.notIgnored, ['notes.txt'], 'a copy of a file git does not ignore would be committed');
    const t = trace(r.dir);
    assert.equal(t.tasks[0]!.state, 'MERGED');
    const merged = r.git(['ls-tree', '-r', '--name-only', t.integration.branch!]).split('\n');
    assert.ok(merged.includes('feature.txt') && !merged.includes('.env') && !merged.includes('notes.txt'));
    assert.match(ledger(r.dir), /Worktree setup done: 1 untracked file copied in/);
    assert.match(ledger(r.dir), /Copied: \.env/);
  });

  it('ends a task whose setup fails in NEEDS_HUMAN with the output, before any agent runs; a retry runs the setup again', () => {
    const r = repo({ 'README.md': '# app\n' });
    const marker = join(scratch(), 'tools-installed');
    const plan = { goal: 'setup', tasks: [task('needs-tools')] };
    const scenario = { tasks: { 'needs-tools': { actor: [write({ 'done.txt': 'ok\n' })], critic: [green] } } };
    const setup = `test -f ${marker} || { echo "the build tools are missing: install them first" >&2; exit 3; }`;
    // The "tools" are a folder of the machine's, outside the repository: the sandbox lets setup read it as any toolchain.
    const first = run(r.dir, plan, scenario, '--setup', 'echo preparing', '--setup', setup, '--gate', 'true', '--read-path', dirname(marker));
    assert.equal(first.code, 1, first.stdout + first.stderr);
    let t = trace(r.dir);
    assert.equal(t.tasks[0]!.state, 'NEEDS_HUMAN');
    assert.match(t.tasks[0]!.lastReason, /^worktree setup `test -f .*` exited 3; .*:\nthe build tools are missing: install them first\n\[taskloom\] ran confined, .* is allowed by taskloom\.sandbox\.setupHosts$/s);
    assert.equal(t.tasks[0]!.gateFailures, 0, 'not a gate failure');
    const log = events(r.dir);
    assert.ok(log.some((e) => e.type === 'task_transition' && e.event === 'SETUP_FAILED'));
    assert.equal(log.filter((e) => e.type === 'runner_call').length, 0, 'no agent ran');
    assert.deepEqual(setups(r.dir)[0]!.commands.map((c) => c.exitCode), [0, 3]);
    assert.match(ledger(r.dir), /Worktree setup failed: .*test -f .* exited 3\n {2}- the build tools are missing: install them first\n/);

    writeFileSync(marker, '');
    const retried = runCli(['retry', 'needs-tools', '--cwd', r.dir]);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    t = trace(r.dir);
    assert.equal(t.tasks[0]!.state, 'MERGED');
    assert.deepEqual(setups(r.dir).map((s) => s.passed), [false, true], 'the retry set the same worktree up again');
  });

  it('puts the worktrees under a root outside the repository, and a retry finds them there', () => {
    const r = repo({ 'README.md': '# app\n' });
    const root = scratch();
    const plan = { goal: 'outside', tasks: [task('flaky')] };
    const scenario = { tasks: { flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] } } };
    assert.equal(run(r.dir, plan, scenario, '--worktree-root', root, '--gate', 'test "$(git rev-parse --show-toplevel)" = "$PWD"').code, 1);
    const { runId } = trace(r.dir);
    const path = join(root, r.dir.split('/').at(-1)!, runId, 'flaky');
    const prepared = events(r.dir).find((e) => e.type === 'worktree_prepared');
    assert.equal(prepared?.type === 'worktree_prepared' ? prepared.path : '', path);
    assert.ok(existsSync(join(path, 'README.md')));
    assert.equal(existsSync(join(r.dir, '.taskloom', 'worktrees', runId)), false);
    const retried = runCli(['retry', 'flaky', '--cwd', r.dir]);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    assert.equal(events(r.dir).filter((e) => e.type === 'worktree_prepared' && e.path === path).length, 2, 'the retry used the same place');
  });

  it('sets a worktree up once: a retry that reuses it does not run the setup again, a kill in the middle of it does', async () => {
    const r = repo({ 'README.md': '# app\n' });
    const dir = scratch();
    const log = join(dir, 'setup.log');
    const done = join(dir, 'may-finish');
    const plan = { goal: 'once', tasks: [task('flaky')] };
    const scenario = { tasks: { flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] } } };
    const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
    // Watched through a log beside the repository, which a confined setup cannot write: unconfined.
    const args = ['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--gate', 'true', '--sandbox', 'off'];
    const { child, done: exited } = startCli([...args, '--setup', `echo "started $TASKLOOM_TASK_ID" >> ${log}; [ -f ${done} ] || sleep 60`]);
    // The baseline sets its own checkout up too (no task id): the kill waits for the task's setup.
    const taskSetupStarted = () => existsSync(log) && readFileSync(log, 'utf8').includes('started flaky');
    for (let waited = 0; !taskSetupStarted() && waited < 30_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    assert.equal(setups(r.dir).length, 0, 'killed before the setup finished');
    writeFileSync(done, '');
    const resumed = runCli(['resume', '--cwd', r.dir]);
    assert.equal(resumed.code, 1, resumed.stdout + resumed.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'NEEDS_HUMAN', 'the actor\'s first try fails');
    const started = () => readFileSync(log, 'utf8').split('\n').filter((l) => l === 'started flaky').length;
    assert.equal(started(), 2, 'the resume ran the interrupted setup again');

    const retried = runCli(['retry', 'flaky', '--cwd', r.dir]);
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    assert.equal(trace(r.dir).tasks[0]!.state, 'MERGED');
    assert.equal(started(), 2, 'the retry reused the worktree as it was set up (the integration gate set its own up)');
    assert.deepEqual(setups(r.dir).map((s) => s.passed), [true]);
  });

  it('gives setup, agents and gate TASKLOOM_RUN_ID, TASKLOOM_TASK_ID and a TASKLOOM_PORT of their own per task', () => {
    const r = repo({ 'README.md': '# app\n' });
    const log = join(scratch(), 'env.log');
    const say = (who: string) => `echo "${who} $TASKLOOM_RUN_ID $TASKLOOM_TASK_ID $TASKLOOM_PORT" >> ${log}`;
    // The command agent plays actor and critic: it notes its environment, the actor writes a file, the critic approves.
    const agent = ['sh', '-c', `${say('$1')}; if [ "$1" = actor ]; then echo ok > "$TASKLOOM_TASK_ID.txt"; else echo '{"decision":"green","summary":"fine","findings":[]}'; fi`, 'sh', '{role}'];
    const plan = { goal: 'ports', tasks: [task('one'), task('two')] };
    const inputs = writeInputs({ 'plan.json': plan });
    const result = runCli([
      'run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--yes', '--parallel', '2',
      '--agent', 'command', '--command', JSON.stringify(agent),
      '--setup', say('setup'), '--gate', `${say('gate')} && test -n "$TASKLOOM_PORT"`,
      // Every process writes a log beside the repository, which confined ones cannot (confinement.test.ts has their environment).
      '--sandbox', 'off',
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { runId } = trace(r.dir);
    const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' '));
    const byTask = new Map<string, Set<string>>();
    for (const [who, run, taskId, port] of lines) {
      assert.equal(run, runId, `${who} sees the run id`);
      assert.ok(['setup', 'actor', 'critic', 'gate'].includes(who!));
      if (taskId === '') continue;
      assert.match(port!, /^\d+$/, `${who} of ${taskId} has a port`);
      if (!byTask.has(taskId!)) byTask.set(taskId!, new Set());
      byTask.get(taskId!)!.add(port!);
    }
    for (const who of ['setup', 'actor', 'critic', 'gate']) {
      assert.ok(lines.some((l) => l[0] === who && l[2] === 'one') && lines.some((l) => l[0] === who && l[2] === 'two'), `${who} ran for both tasks`);
    }
    const one = [...byTask.get('one')!];
    const two = [...byTask.get('two')!];
    assert.equal(one.length, 1, 'one port for all of a task\'s steps');
    assert.equal(two.length, 1);
    assert.notEqual(one[0], two[0], 'parallel tasks have different ports');
    const prepared = events(r.dir).filter((e) => e.type === 'worktree_prepared');
    assert.deepEqual(prepared.map((e) => (e.type === 'worktree_prepared' ? String(e.port) : '')).sort(), [one[0], two[0]].sort(), 'recorded, so a resume reuses them');
  });
});
