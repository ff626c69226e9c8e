import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { linuxProcessTable } from '../../src/engine/process/linuxProcessTable';
import { portableProcessTable } from '../../src/engine/process/portableProcessTable';
import { chooseProcessTable, type ProcessTable } from '../../src/engine/process/processTable';

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function sleeper(marker: string): ChildProcess {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', env: { ...process.env, TASKLOOM_TABLE_TEST: marker } });
  children.push(child);
  return child;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

// The portable table (ps) is what macOS gets; it runs here too, against the same real processes.
for (const table of [linuxProcessTable, portableProcessTable] as ProcessTable[]) {
  describe(`the ${table.name} process table, on real processes`, () => {
    it('sees a running process and its group, and no longer once it is gone', async () => {
      const child = sleeper(`alive-${table.name}`);
      const pid = child.pid!;
      assert.equal(table.isAlive(pid), true);
      assert.equal(table.isGroupAlive(pid), true, 'a detached child leads its own group');
      await killed(child);
      assert.equal(table.isAlive(pid), false);
      assert.equal(table.isGroupAlive(pid), false);
      assert.equal(table.startTime(pid), undefined);
    });

    it('gives a start time that stays the same for a process and differs for another', async () => {
      const first = sleeper(`start-${table.name}`);
      const mark = table.startTime(first.pid!);
      assert.ok(mark, 'a start time');
      assert.equal(table.startTime(first.pid!), mark);
      assert.notEqual(table.startTime(1), mark, 'pid 1 started long before');
      await killed(first);
    });

    it('finds the processes whose environment holds a marker, and only those', async () => {
      const marker = `env-${table.name}-${process.pid}`;
      const child = sleeper(marker);
      const found = table.withEnvironmentEntry(`TASKLOOM_TABLE_TEST=${marker}`);
      assert.deepEqual(found.map((p) => p.pid), [child.pid]);
      assert.equal(found[0]!.startedAt, table.startTime(child.pid!));
      await killed(child);
      assert.deepEqual(table.withEnvironmentEntry(`TASKLOOM_TABLE_TEST=${marker}`), []);
    });
  });
}

describe('choosing the process table', () => {
  it('takes /proc on Linux, ps elsewhere or when asked to', () => {
    assert.equal(chooseProcessTable('linux', {}, true).name, 'linux');
    assert.equal(chooseProcessTable('linux', { TASKLOOM_PROCESS_TABLE: 'portable' }, true).name, 'portable');
    assert.equal(chooseProcessTable('linux', {}, false).name, 'portable');
    assert.equal(chooseProcessTable('darwin', {}, false).name, 'portable');
  });
});
