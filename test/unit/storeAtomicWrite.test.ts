import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { writeFileAtomic } from '../../src/engine/io/atomicWrite';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-atomic-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces the file through a new inode and leaves no temp file behind', () => {
    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, 'old');
    const before = fs.statSync(file).ino;
    writeFileAtomic(file, 'new');
    assert.equal(fs.readFileSync(file, 'utf8'), 'new');
    assert.notEqual(fs.statSync(file).ino, before);
    assert.deepEqual(fs.readdirSync(dir), ['state.json']);
  });

  it('leaves the old file and no temp file when the rename fails', () => {
    const file = path.join(dir, 'taken');
    fs.mkdirSync(path.join(file, 'inside'), { recursive: true });
    assert.throws(() => writeFileAtomic(file, 'new'));
    assert.deepEqual(fs.readdirSync(dir), ['taken']);
    assert.ok(fs.statSync(file).isDirectory());
  });
});
