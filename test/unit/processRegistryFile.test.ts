import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { stopLeftoverProcessGroups } from '../../src/engine/process/childRegistry';
import { processTable } from '../../src/engine/process/processTable';

// The registry of process groups a dead engine left running is read back by the next engine,
// which signals what it names: only a file of the shape the engine writes is believed.

let dir: string;
let file: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-registry-'));
  file = path.join(dir, 'registry.json');
});
afterEach(() => {
  if (child?.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A process in a group of its own, as the engine starts agents and gates. */
function leftover(): { pgid: number; startedAt: string } {
  child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  const pgid = child.pid!;
  return { pgid, startedAt: processTable.startTime(pgid)! };
}

describe('the process registry read back from disk', () => {
  it('stops a group the file names with its start time', async () => {
    const group = leftover();
    fs.writeFileSync(file, JSON.stringify({ owner: 1, groups: [group] }));
    const exited = once(child!, 'exit');
    assert.equal(await stopLeftoverProcessGroups(file, 100), 1);
    await exited;
  });

  it('names no group to stop when the file is not of the shape the engine writes, and does not fail', async () => {
    const group = leftover();
    const others = [
      '{"groups": [',
      'null',
      JSON.stringify({ groups: { [group.pgid]: group } }),
      JSON.stringify({ groups: [{ ...group, pgid: String(group.pgid) }] }),
      JSON.stringify({ groups: [{ pgid: group.pgid }] }),
    ];
    for (const text of others) {
      fs.writeFileSync(file, text);
      assert.equal(await stopLeftoverProcessGroups(file, 100), 0, text);
    }
    assert.ok(processTable.isGroupAlive(group.pgid), 'the group was left alone');
  });
});
