import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TraceReport } from '../../src/engine/report/traceReport';
import { EXIT } from '../../src/engine/domain/taskloomError';
import { runCli, startCli, writeInputs } from '../helpers/cli';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';
import { processRegistryFile } from '../../src/engine/run/engine';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));
const repo = (options?: Parameters<typeof makeTempRepo>[0]) => {
  const r = makeTempRepo(options);
  repos.push(r);
  return r;
};

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, acceptance: [], dependsOn });
const onePlan = { goal: 'one', tasks: [task('a')] };
const green = { verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 };

function run(dir: string, plan: unknown, scenario: object, ...flags: string[]) {
  const inputs = writeInputs({ 'plan.json': plan, 'scenario.json': scenario });
  // The gates here check the work still to be done (`test -f done.txt`): failing on the base is what they are for.
  return runCli(['run', '--cwd', dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', ...flags, '--on-base-failure', 'required']);
}

function trace(dir: string): TraceReport {
  const result = runCli(['trace', '--json', '--cwd', dir]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as TraceReport;
}

/** Living processes whose working directory is inside `dir` (agents or gates left behind), as "pid command". */
function processesInside(dir: string, commandIncludes = ''): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const zombie = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!zombie && readlinkSync(`/proc/${pid}/cwd`).startsWith(dir) && command.includes(commandIncludes)) found.push(`${pid} ${command}`);
    } catch {
      // gone or not ours
    }
  }
  return found;
}

describe('bad input gets a clear error and loses nothing', () => {
  it('refuses a folder that is not a git repository', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskloom-nogit-'));
    const result = run(dir, onePlan, {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /is not inside a git repository/);
    assert.match(result.stderr, /git init/);
  });

  it('refuses a repository with no commits', () => {
    const r = repo({ commit: false });
    const result = run(r.dir, onePlan, {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no commits/i);
  });

  it('works from the last commit in a dirty tree, says what it ignored and leaves the changes alone', () => {
    const r = repo({ files: { 'README.md': 'committed\n' } });
    writeFileSync(join(r.dir, 'README.md'), 'my unsaved edit\n');
    writeFileSync(join(r.dir, 'notes.txt'), 'untracked\n');
    const scenario = { tasks: { a: { actor: [{ write: { 'a.txt': 'a' }, delayMs: 0 }], critic: [green] } } };
    // The gate proves the worktree holds the committed README, not the edit.
    const result = run(r.dir, onePlan, scenario, '--gate', 'grep -q committed README.md');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /uncommitted changes.*README\.md, notes\.txt/);
    assert.equal(readFileSync(join(r.dir, 'README.md'), 'utf8'), 'my unsaved edit\n');
    assert.equal(readFileSync(join(r.dir, 'notes.txt'), 'utf8'), 'untracked\n');
  });

  it('rejects a malformed plan naming every problem, and runs nothing', () => {
    const r = repo();
    const plan = { goal: 'bad', tasks: [task('a'), { ...task('a'), title: '' }, task('../x'), task('b', ['ghost'])] };
    const result = run(r.dir, plan, {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /duplicate/i);
    assert.match(result.stderr, /\.\.\/x/);
    assert.match(result.stderr, /unknown task "ghost"/);
    assert.equal(existsSync(join(r.dir, '.taskloom', 'runs')), false, 'no run was created');
  });

  it('rejects a cyclic plan naming the cycle', () => {
    const r = repo();
    const result = run(r.dir, { goal: 'cycle', tasks: [task('a', ['b']), task('b', ['a'])] }, {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /a → b → a/);
  });

  it('says which plan file is missing', () => {
    const r = repo();
    const result = runCli(['run', '--cwd', r.dir, '--plan', join(r.dir, 'nope.json'), '--script', '/dev/null', '--yes']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /nope\.json/);
    assert.doesNotMatch(result.stderr, /internal error/);
  });

  it('says when a run id does not exist, for resume and trace', () => {
    const r = repo();
    for (const command of ['resume', 'trace']) {
      const result = runCli([command, 'no-such-run', '--cwd', r.dir]);
      assert.equal(result.code, 2, command);
      assert.match(result.stderr, /No run "no-such-run"/);
      assert.doesNotMatch(result.stderr, /internal error/);
    }
  });

  it('turns a crashing agent into NEEDS_HUMAN with the reason', () => {
    const r = repo();
    const result = run(r.dir, onePlan, { tasks: { a: { actor: [{ crash: true, delayMs: 0 }] } } }, '--gate', 'true');
    assert.equal(result.code, 1);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.state, 'NEEDS_HUMAN');
    assert.match(a.lastReason, /crashed/);
  });

  it('stops a hanging agent after the stuck threshold and leaves no process behind', () => {
    const r = repo();
    const result = run(r.dir, onePlan, { tasks: { a: { actor: [{ hang: true }] } } }, '--gate', 'true', '--stuck-seconds', '1');
    assert.equal(result.code, 1);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.state, 'NEEDS_HUMAN');
    assert.ok(a.transitions.some((t) => t.event === 'STUCK_ABORTED'));
    assert.match(a.lastReason, /no activity for 1s/);
    assert.deepEqual(processesInside(r.dir), []);
  });

  it('gives up on a critic that never answers a valid verdict, after one repair request', () => {
    const r = repo();
    const scenario = { tasks: { a: { actor: [{ write: { 'a.txt': 'a' }, delayMs: 0 }], critic: [{ raw: 'looks good to me!', delayMs: 0 }] } } };
    assert.equal(run(r.dir, onePlan, scenario, '--gate', 'true').code, 1);
    const t = trace(r.dir);
    assert.ok(t.tasks[0]!.transitions.some((x) => x.event === 'MALFORMED_GIVEUP'));
    assert.equal(t.usage.byRole.critic ? t.usage.calls : 0, 3, 'actor, critic, one repair');
  });

  it('reports a gate command that does not exist', () => {
    const r = repo();
    const scenario = { tasks: { a: { actor: [{ write: { 'a.txt': 'a' }, delayMs: 0 }] } } };
    const result = run(r.dir, onePlan, scenario, '--gate', 'no-such-gate-command --check', '--max-attempts', '1');
    assert.equal(result.code, 1);
    const a = trace(r.dir).tasks[0]!;
    assert.equal(a.state, 'NEEDS_HUMAN');
    assert.match(a.lastReason, /no-such-gate-command.*exited 127/);
    const [runId] = readdirSync(join(r.dir, '.taskloom', 'runs'));
    assert.match(readFileSync(join(r.dir, '.taskloom', 'runs', runId!, 'DECISIONS.md'), 'utf8'), /not found/);
  });

  it('stops a second process from driving the same workspace, while read-only commands work', async () => {
    const r = repo();
    const inputs = writeInputs({ 'plan.json': onePlan, 'scenario.json': { tasks: { a: { actor: [{ hang: true }] } } } });
    const first = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--stuck-seconds', '60']);
    try {
      for (let i = 0; i < 200 && !existsSync(join(r.dir, '.taskloom', 'lock')); i++) await sleep(50);
      const second = run(r.dir, onePlan, {});
      assert.equal(second.code, EXIT.busy, 'busy, not bad input: the same command works once the other is done');
      assert.match(second.stderr, new RegExp(`Another Taskloom process \\(pid ${first.child.pid}.* is driving this workspace\\. Wait for it to finish`));
      assert.equal(runCli(['runs', '--cwd', r.dir]).code, 0);
    } finally {
      process.kill(-first.child.pid!, 'SIGINT');
      await first.done;
    }
    assert.equal(trace(r.dir).status, 'cancelled');
  });

  // Unconfined: a confined agent dies with the process that started it (the next test).
  it('stops the agents a killed Taskloom process left running before resuming', async () => {
    const r = repo();
    const inputs = writeInputs({ 'plan.json': onePlan, 'scenario.json': { tasks: { a: { actor: [{ hang: true }] } } } });
    const first = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--stuck-seconds', '3', '--sandbox', 'off']);
    const agentsInside = () => processesInside(join(r.dir, '.taskloom', 'worktrees'), 'scripted-agent');
    const tracked = () => {
      try {
        return (JSON.parse(readFileSync(processRegistryFile(r.dir), 'utf8')) as { groups: unknown[] }).groups.length;
      } catch {
        return 0;
      }
    };
    // The CLI has its start-up line (written to the log at once as its transcript): the agent is
    // past its only output, so the CLI's death does not end it by a broken pipe.
    const announced = () => {
      const runs = join(r.dir, '.taskloom', 'runs');
      const [runId] = existsSync(runs) ? readdirSync(runs) : [];
      const log = runId ? join(runs, runId, 'events.jsonl') : '';
      return log !== '' && existsSync(log) && readFileSync(log, 'utf8').includes('scripted actor started');
    };
    for (let i = 0; i < 600 && (agentsInside().length === 0 || tracked() === 0 || !announced()); i++) await sleep(50);
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.done;
    assert.equal(agentsInside().length, 1, 'the hanging agent outlived the killed CLI');

    const resumed = runCli(['resume', '--cwd', r.dir]);
    assert.match(resumed.stderr, /stopped 1 agent or gate process group left running/, resumed.stdout);
    assert.equal(resumed.code, 1, 'the resumed attempt hangs too and is stopped by the watchdog');
    assert.deepEqual(processesInside(r.dir), []);
  });

  it('leaves no confined agent running when the Taskloom process that started it is killed', async () => {
    const r = repo();
    const inputs = writeInputs({ 'plan.json': onePlan, 'scenario.json': { tasks: { a: { actor: [{ hang: true }] } } } });
    const first = startCli(['run', '--cwd', r.dir, '--plan', inputs['plan.json']!, '--script', inputs['scenario.json']!, '--yes', '--stuck-seconds', '30']);
    const agentsInside = () => processesInside(join(r.dir, '.taskloom', 'worktrees'), 'scripted-agent');
    for (let i = 0; i < 600 && agentsInside().length === 0; i++) await sleep(50);
    assert.ok(agentsInside().length > 0, 'the agent started');
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.done;
    // The sandbox dies with its parent (SIGKILL from the kernel); give the kernel a moment, not a deadline.
    for (let i = 0; i < 100 && agentsInside().length > 0; i++) await sleep(50);
    assert.deepEqual(agentsInside(), []);
  });

  it('survives a corrupt state.json and a torn last log line', () => {
    const r = repo();
    const scenario = { tasks: { a: { actor: [{ write: { 'a.txt': 'a' }, delayMs: 0 }], critic: [green] } } };
    assert.equal(run(r.dir, onePlan, scenario, '--gate', 'true').code, 0);
    const before = trace(r.dir);
    writeFileSync(join(r.dir, '.taskloom', 'state.json'), '{"schemaVersion": 1, "runs": {');
    appendFileSync(join(r.dir, '.taskloom', 'runs', before.runId, 'events.jsonl'), '{"seq": 999, "type": "warn');
    const result = runCli(['trace', '--json', '--cwd', r.dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /torn/);
    const afterTrace = JSON.parse(result.stdout) as TraceReport;
    assert.deepEqual(afterTrace.tasks, before.tasks);
    assert.equal(afterTrace.status, 'completed');
  });
});
