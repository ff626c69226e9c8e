import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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

describe('exit codes say what kind of failure it was', () => {
  it('retry on a full disk exits with the storage code, keeps the log, and says to free space and go on', () => {
    const r = repo();
    const plan = { goal: 'full disk', tasks: [task('flaky')] };
    const scenario = { tasks: { flaky: { actor: [{ fail: 'first try fails', delayMs: 0 }, write({ 'flaky.txt': 'ok\n' })], critic: [green] } } };
    assert.equal(runScripted(r.dir, plan, scenario, '--gate', 'true').code, EXIT.needsHuman);

    const full = runCliWithFileLimit(1, ['retry', 'flaky', '--cwd', r.dir]);
    assert.equal(full.code, EXIT.storage, full.stderr);
    assert.match(full.stderr, /Could not append an event to .*events\.jsonl: the file has reached the size limit/);
    assert.match(full.stderr, /\nFree some space .*then run the command again/);
    assert.doesNotMatch(full.stderr, STACK);
    assert.equal(trace(r.dir).tasks[0]!.state, 'NEEDS_HUMAN', 'the decision was not recorded');

    const again = runCli(['retry', 'flaky', '--cwd', r.dir]);
    assert.equal(again.code, EXIT.ok, again.stdout + again.stderr);
  });

  it('reports an error Taskloom has no account for as internal, with where to look, apart from bad input', () => {
    const r = repo();
    // A file where Taskloom keeps its folder: nothing the engine words for the user.
    writeFileSync(join(r.dir, '.taskloom'), 'not a folder\n');
    const result = runCli(['runs', '--cwd', r.dir]);
    assert.equal(result.code, EXIT.internal);
    assert.notEqual(EXIT.internal, EXIT.badInput);
    assert.match(result.stderr, /^taskloom: internal error: ENOTDIR: not a directory/);
    assert.match(result.stderr, /it is a bug, not your input\. Run the command again with TASKLOOM_DEBUG=1 for the stack trace/);
    assert.doesNotMatch(result.stderr, STACK);

    const debug = runCli(['runs', '--cwd', r.dir], { env: { TASKLOOM_DEBUG: '1' } });
    assert.equal(debug.code, EXIT.internal);
    assert.match(debug.stderr, STACK);
  });

  it('bad usage keeps exit 2 with its hint', () => {
    const result = runCli(['frobnicate']);
    assert.equal(result.code, EXIT.badInput);
    assert.equal(result.stderr, 'taskloom: Unknown command "frobnicate"\nRun `taskloom help` for the list.\n');
  });
});
