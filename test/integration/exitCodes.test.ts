import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT } from '../../src/engine/domain/taskloomError';
import { CLI, runCli, type CliResult } from '../helpers/cli';
import { green, runScripted, task, trace, write } from '../helpers/scriptedRun';
import { makeTempRepo, type TempRepo } from '../helpers/tempRepo';

const repos: TempRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

function repo(): TempRepo {
  const r = makeTempRepo();
  repos.push(r);
  return r;
}

/** The CLI under `ulimit -f`: a write past `kib` KiB fails with EFBIG, as on a full disk (Node ignores SIGXFSZ). */
function runCliWithFileLimit(kib: number, args: string[]): CliResult {
  const result = spawnSync('bash', ['-c', `ulimit -f ${kib} && exec "$0" "$@"`, process.execPath, CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const STACK = /\n\s+at .+:\d+:\d+\)?/;

/** test/helpers/cliWithBug.ts: the CLI's way out, handed a command that throws a plain Error. */
function runCliWithBug(env: NodeJS.ProcessEnv): CliResult {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'helpers', 'cliWithBug.ts')], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('exit codes say what kind of failure it was', () => {
  it('retry on a full disk exits with the storage code, keeps the log, and says to free space and go on', () => {
    const r = repo();
    const plan = { goal: 'full disk', tasks: [task('flaky')] };
    const scenario = { tasks: { flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] } } };
    assert.equal(runScripted(r.dir, plan, scenario, '--gate', 'true').code, EXIT.needsHuman);

    const full = runCliWithFileLimit(1, ['retry', 'flaky', '--cwd', r.dir]);
    assert.equal(full.code, EXIT.storage, full.stderr);
    assert.match(full.stderr, /Could not append an event to .*events\.jsonl: the file has reached the size limit/);
    assert.match(full.stderr, /the file has reached the size limit.*\. Free some space .*then try again/);
    assert.doesNotMatch(full.stderr, STACK);
    assert.equal(trace(r.dir).tasks[0]!.state, 'NEEDS_HUMAN', 'the decision was not recorded');

    const again = runCli(['retry', 'flaky', '--cwd', r.dir]);
    assert.equal(again.code, EXIT.ok, again.stdout + again.stderr);
  });

  it('a file where the .taskloom folder goes is setup to fix: it names the path and what to do, in every command', () => {
    const r = repo();
    writeFileSync(join(r.dir, '.taskloom'), 'not a folder\n');
    const expected = `taskloom: ${join(r.dir, '.taskloom')} is not a folder: Taskloom keeps its runs in a folder of that name. Move or rename it, then try again; Taskloom makes the folder itself.\n`;
    const results = {
      runs: runCli(['runs', '--cwd', r.dir]),
      trace: runCli(['trace', '--cwd', r.dir]),
      run: runScripted(r.dir, { goal: 'a file in the way', tasks: [task('only')] }, { tasks: { only: { actor: [write({ 'only.txt': 'ok\n' })], critic: [green] } } }, '--gate', 'true'),
    };
    for (const [command, result] of Object.entries(results)) {
      assert.equal(result.code, EXIT.badInput, `${command}: ${result.stderr}`);
      assert.equal(result.stderr, expected, command);
    }
    const doctor = runCli(['doctor', '--cwd', r.dir]);
    assert.match(doctor.stdout, /is not a folder: Taskloom keeps its runs in a folder of that name\. Move or rename it/);

    rmSync(join(r.dir, '.taskloom'));
    assert.equal(runCli(['runs', '--cwd', r.dir]).code, EXIT.ok, 'moved away, the folder is made');
  });

  it('reports an error Taskloom has no account for as internal, with where to look, apart from bad input', () => {
    const bug = runCliWithBug({});
    assert.equal(bug.code, EXIT.internal);
    assert.notEqual(EXIT.internal, EXIT.badInput);
    assert.equal(
      bug.stderr,
      'taskloom: internal error: Cannot read the status of a run that has no state\n' +
        'Taskloom did not expect this: it is a bug, not your input. Run the command again with TASKLOOM_DEBUG=1 for the stack trace, and report it with that.\n',
    );
    assert.doesNotMatch(bug.stderr, STACK);

    const debug = runCliWithBug({ TASKLOOM_DEBUG: '1' });
    assert.equal(debug.code, EXIT.internal);
    assert.match(debug.stderr, /^taskloom: internal error: Cannot read the status/);
    assert.match(debug.stderr, STACK);
  });

  it('bad usage keeps exit 2 with its hint', () => {
    const result = runCli(['frobnicate']);
    assert.equal(result.code, EXIT.badInput);
    assert.equal(result.stderr, 'taskloom: Unknown command "frobnicate". Run `taskloom help` for the list.\n');
  });
});
