import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LockHeldError, WorkspaceLock } from '../../src/engine/store/lock';

const LOCK_MODULE = path.resolve(import.meta.dirname, '../../src/engine/store/lock.ts');

let dir: string;
let lockFile: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-lock-'));
  lockFile = path.join(dir, 'lock');
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeLock(owner: { pid: number; host?: string; command?: string; startedAt?: string }): void {
  fs.writeFileSync(
    lockFile,
    JSON.stringify({ host: os.hostname(), command: 'taskloom run', startedAt: new Date().toISOString(), ...owner }),
  );
}

/** A pid that is certainly not running: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** Runs a TypeScript snippet in another Node process with the lock module imported as `lock`. */
function nodeChild(body: string): ChildProcess {
  const script = path.join(dir, `child-${children.length}.ts`);
  fs.writeFileSync(script, `import * as lock from ${JSON.stringify(LOCK_MODULE)};\n${body}\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

async function firstLine(child: ChildProcess): Promise<string> {
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes('\n')) return out.split('\n')[0]!;
  }
  throw new Error(`child ended without output (exit ${child.exitCode})`);
}

describe('WorkspaceLock', () => {
  it('creates the lock with pid, host, command and start time, and release removes it', () => {
    const lock = WorkspaceLock.acquire(dir, { command: 'taskloom run' });
    const owner = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    assert.equal(owner.pid, process.pid);
    assert.equal(owner.host, os.hostname());
    assert.equal(owner.command, 'taskloom run');
    assert.ok(!Number.isNaN(Date.parse(owner.startedAt)));
    assert.deepEqual(lock.warnings, []);
    lock.release();
    assert.equal(fs.existsSync(lockFile), false);
    lock.release();
  });

  it('refuses a lock held by a live process, saying who holds it and what still works', async () => {
    const sleeper = spawn('sleep', ['30']);
    children.push(sleeper);
    await once(sleeper, 'spawn');
    writeLock({ pid: sleeper.pid!, startedAt: new Date(2020, 0, 1, 10, 2, 11).toISOString() });
    assert.throws(
      () => WorkspaceLock.acquire(dir, { command: 'taskloom resume' }),
      (error: unknown) => {
        assert.ok(error instanceof LockHeldError);
        assert.equal(
          error.message,
          `Another Taskloom process (pid ${sleeper.pid}, "taskloom run", since 2020-01-01 10:02:11) is driving this workspace`,
        );
        assert.equal(error.hint, 'Wait for it to finish or stop it; read-only commands (runs, trace) still work.');
        assert.equal(error.kind, 'busy');
        return true;
      },
    );
    assert.equal(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid, sleeper.pid, 'the holder keeps its lock');
  });

  it('shows only the time for a lock taken today', () => {
    const lock = WorkspaceLock.acquire(dir, { command: 'taskloom run' });
    try {
      assert.throws(
        () => WorkspaceLock.acquire(dir, { command: 'taskloom run' }),
        /^LockHeldError: Another Taskloom process \(pid \d+, "taskloom run", since \d\d:\d\d:\d\d\) is driving this workspace$/,
      );
    } finally {
      lock.release();
    }
  });

  it('refuses while another Node process holds the lock, and takes over once it was killed', async () => {
    const holder = nodeChild(`
      const held = lock.WorkspaceLock.acquire(${JSON.stringify(dir)}, { command: 'taskloom run' });
      process.stdout.write('locked\\n');
      process.stdin.on('data', () => {});
    `);
    assert.equal(await firstLine(holder), 'locked');
    assert.throws(() => WorkspaceLock.acquire(dir, { command: 'taskloom run' }), LockHeldError);

    // SIGKILL: no exit handler runs, so the lock file stays behind with a dead pid.
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    assert.ok(fs.existsSync(lockFile));
    const lock = WorkspaceLock.acquire(dir, { command: 'taskloom resume' });
    assert.equal(lock.warnings.length, 1);
    assert.match(lock.warnings[0]!, new RegExp(`^Took over a stale lock from pid ${holder.pid} \\("taskloom run", since .+\\), which is no longer running$`));
    assert.equal(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid, process.pid);
    lock.release();
  });

  it('releases the lock when the process exits without releasing it', async () => {
    const child = nodeChild(`
      lock.WorkspaceLock.acquire(${JSON.stringify(dir)}, { command: 'taskloom run' });
      process.stdout.write('locked\\n');
      setTimeout(() => process.exit(3), 50);
    `);
    assert.equal(await firstLine(child), 'locked');
    const [code] = await once(child, 'exit');
    assert.equal(code, 3);
    assert.equal(fs.existsSync(lockFile), false);
  });

  it('takes over a lock whose pid is dead, with a warning', () => {
    const pid = deadPid();
    writeLock({ pid });
    const lock = WorkspaceLock.acquire(dir, { command: 'taskloom run' });
    assert.match(lock.warnings[0]!, new RegExp(`stale lock from pid ${pid}`));
    lock.release();
  });

  it('takes over an unreadable lock file, or one of another shape, with a warning', () => {
    const others = ['{"pid": 12', 'null', '[1]', JSON.stringify({ pid: String(process.pid), host: os.hostname(), command: 'taskloom run', startedAt: '' })];
    for (const text of others) {
      fs.writeFileSync(lockFile, text);
      const lock = WorkspaceLock.acquire(dir, { command: 'taskloom run' });
      assert.deepEqual(lock.warnings, ['Took over an unreadable lock file left by an earlier Taskloom process'], text);
      assert.equal(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid, process.pid);
      lock.release();
    }
  });

  it('counts a lock from another host as held, since its process cannot be checked', () => {
    writeLock({ pid: deadPid(), host: 'some-other-machine' });
    assert.throws(
      () => WorkspaceLock.acquire(dir, { command: 'taskloom run' }),
      (error: unknown) => error instanceof LockHeldError && /on host "some-other-machine"/.test(error.message) && /delete .*lock/.test(error.hint ?? ''),
    );
  });

  it('release leaves a lock that is no longer its own', () => {
    const lock = WorkspaceLock.acquire(dir, { command: 'taskloom run' });
    writeLock({ pid: process.pid, command: 'someone else', startedAt: '2020-01-01T00:00:00.000Z' });
    lock.release();
    assert.equal(JSON.parse(fs.readFileSync(lockFile, 'utf8')).command, 'someone else');
  });
});
