import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { isProcessAlive, isProcessGroupAlive } from '../../src/engine/process/liveness';
import { killProcessGroup, runProcess } from '../../src/engine/process/processGroup';

// Liveness is checked through /proc as well as kill(pid, 0): here PID 1 does not reap
// orphans, so a killed grandchild lingers as a zombie that kill(pid, 0) still reports.

const sh = (script: string) => ({ command: 'sh', args: ['-c', script], cwd: process.cwd() });

/** The shell prints its own pid (the group id) and its background child's pid. */
const GROUP_WITH_GRANDCHILD = 'sleep 100 & echo "$$ $!"; sleep 100';

function pidsFrom(stdout: string): { group: number; grandchild: number } {
  const [group, grandchild] = stdout.trim().split(/\s+/).map(Number);
  assert.ok(group! > 0 && grandchild! > 0, `expected two pids, got ${JSON.stringify(stdout)}`);
  return { group: group!, grandchild: grandchild! };
}

function assertNothingLeft(pids: { group: number; grandchild: number }): void {
  assert.equal(isProcessAlive(pids.grandchild), false, 'the grandchild survived');
  assert.equal(isProcessAlive(pids.group), false, 'the leader survived');
  assert.equal(isProcessGroupAlive(pids.group), false, 'a member of the group survived');
}

describe('runProcess', () => {
  it('returns exit code, separate streams and interleaved output, and feeds stdin', async () => {
    const result = await runProcess({
      command: process.execPath,
      args: ['-e', 'process.stdin.on("data", d => process.stdout.write(String(d).toUpperCase())); process.stdin.on("end", () => { console.error("err-line"); process.exit(4); })'],
      cwd: process.cwd(),
      input: 'hello',
    });
    assert.equal(result.exitCode, 4);
    assert.equal(result.signal, null);
    assert.equal(result.stdout, 'HELLO');
    assert.equal(result.stderr, 'err-line\n');
    assert.match(result.output, /HELLO/);
    assert.match(result.output, /err-line/);
    assert.deepEqual([result.timedOut, result.idleTimedOut, result.cancelled], [false, false, false]);
    assert.equal(result.spawnError, undefined);
  });

  it('streams output chunks with their stream names', async () => {
    const seen: string[] = [];
    await runProcess({ ...sh('echo out; echo err >&2'), onOutput: (chunk, stream) => seen.push(`${stream}:${chunk.trim()}`) });
    assert.deepEqual(seen.sort(), ['stderr:err', 'stdout:out']);
  });

  it('kills the whole process group, grandchild included, on timeout', async () => {
    const result = await runProcess({ ...sh(GROUP_WITH_GRANDCHILD), timeoutMs: 500, killGraceMs: 200 });
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assertNothingLeft(pidsFrom(result.stdout));
  });

  it('kills the whole process group on abort', async () => {
    const controller = new AbortController();
    const result = await runProcess({
      ...sh(GROUP_WITH_GRANDCHILD),
      signal: controller.signal,
      killGraceMs: 200,
      onOutput: () => controller.abort(),
    });
    assert.equal(result.cancelled, true);
    assert.equal(result.timedOut, false);
    assertNothingLeft(pidsFrom(result.stdout));
  });

  it('does not start anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runProcess({ ...sh('echo ran'), signal: controller.signal });
    assert.equal(result.cancelled, true);
    assert.equal(result.output, '');
  });

  it('escalates to SIGKILL when the group ignores SIGINT and SIGTERM', async () => {
    const result = await runProcess({
      ...sh(`trap '' INT TERM; sleep 100 & echo "$$ $!"; while :; do sleep 0.05; done`),
      timeoutMs: 500,
      killGraceMs: 150,
    });
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, 'SIGKILL');
    assertNothingLeft(pidsFrom(result.stdout));
  });

  it('fires the idle timeout on silence', async () => {
    const result = await runProcess({ ...sh('echo started; sleep 100'), idleTimeoutMs: 300, killGraceMs: 200 });
    assert.equal(result.idleTimedOut, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.stdout, 'started\n');
  });

  it('does not fire the idle timeout while output keeps coming', async () => {
    // sh, not node: its first line comes out at once even on a loaded machine.
    const result = await runProcess({ ...sh('for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo $i; sleep 0.1; done'), idleTimeoutMs: 500 });
    assert.equal(result.idleTimedOut, false);
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.trim().split('\n').length, 12);
    assert.ok(result.durationMs > 1000, 'ran past the idle timeout');
  });

  it('keeps the head and the tail of a large output with a marker', async () => {
    const result = await runProcess({
      command: process.execPath,
      args: ['-e', 'process.stdout.write("A".repeat(100000) + "Z".repeat(100000))'],
      cwd: process.cwd(),
      maxOutputBytes: 1000,
    });
    const expected = `${'A'.repeat(500)}\n… 199000 bytes omitted …\n${'Z'.repeat(500)}`;
    assert.equal(result.stdout, expected);
    assert.equal(result.output, expected);
  });

  it('resolves with a clear spawnError naming a missing command', async () => {
    const result = await runProcess({ command: 'taskloom-no-such-command', args: [], cwd: process.cwd() });
    assert.match(result.spawnError ?? '', /`taskloom-no-such-command` was not found/);
    assert.equal(result.spawnErrorCode, 'ENOENT', 'the cause as data, for the runners to tell a missing agent by');
    assert.equal(result.exitCode, null);
  });

  it('resolves with a spawnError naming a missing working directory', async () => {
    const result = await runProcess({ ...sh('true'), cwd: '/nonexistent/taskloom-dir' });
    assert.match(result.spawnError ?? '', /\/nonexistent\/taskloom-dir does not exist/);
    assert.equal(result.spawnErrorCode, undefined, 'not a missing program');
  });

  // The descendant would hold the output open for an hour: waiting for it fails by the test's timeout.
  it('stops descendants left behind when the command exits, even those holding its output', { timeout: 30_000 }, async () => {
    const result = await runProcess({ ...sh('sleep 3600 & echo "$$ $!"'), killGraceMs: 200 });
    assert.equal(result.exitCode, 0);
    assertNothingLeft(pidsFrom(result.stdout));
  });
});

describe('killProcessGroup', () => {
  it('stops a detached group', async () => {
    const child = spawn('sh', ['-c', 'sleep 100 & sleep 100'], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    assert.equal(isProcessGroupAlive(pid), true);
    await killProcessGroup(pid, 200);
    assert.equal(isProcessGroupAlive(pid), false);
  });

  // An hour's grace: waiting it out for a group that is gone fails by the test's timeout.
  it('returns at once for a group that is gone', { timeout: 30_000 }, async () => {
    await killProcessGroup(2 ** 22 - 7, 3_600_000);
  });
});
