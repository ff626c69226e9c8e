import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RunInbox, type RunRequest } from '../../src/engine/store/runInbox';

const runDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-inbox-'));

test('requests posted from another process are read in the order they were posted, and removed once done', () => {
  const dir = runDir();
  const sender = new RunInbox(dir);
  const first = sender.post({ kind: 'message', taskId: 'api', from: 'ana', text: 'use the v2 endpoint' });
  const second = sender.post({ kind: 'stop', taskId: 'docs', from: 'ana' });
  const driver = new RunInbox(dir);
  const { requests, unreadable } = driver.read();
  assert.deepEqual(requests.map((r) => r.id), [first.id, second.id]);
  assert.deepEqual(unreadable, []);
  driver.done(first);
  assert.deepEqual(driver.read().requests.map((r) => r.id), [second.id]);
});

test('a request that is not one (bad JSON, an unknown kind, a path as task id) is refused when posted or set aside when read', () => {
  const dir = runDir();
  const inbox = new RunInbox(dir);
  assert.throws(() => inbox.post({ kind: 'message', taskId: '../x', from: 'ana', text: 'hi' }));
  assert.throws(() => inbox.post({ kind: 'message', taskId: 'api', from: 'ana', text: '   ' }));
  fs.mkdirSync(inbox.dir, { recursive: true });
  fs.writeFileSync(path.join(inbox.dir, '0-bad.json'), '{"kind":"run","command":"rm -rf /"}');
  fs.writeFileSync(path.join(inbox.dir, '1-torn.json'), '{"kind":"mess');
  const seen: RunRequest[] = [];
  const setAside: string[] = [];
  const stop = inbox.listen(
    (r) => void seen.push(r),
    (u) => setAside.push(path.basename(u.file)),
  );
  stop();
  return new Promise<void>((resolve) => setTimeout(resolve, 50)).then(() => {
    assert.deepEqual(seen, []);
    assert.deepEqual(setAside.sort(), ['0-bad.json', '1-torn.json']);
    assert.deepEqual(fs.readdirSync(inbox.dir), []);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'inbox-unreadable')).sort(), ['0-bad.json', '1-torn.json']);
  });
});

test('a listening driver gets requests posted while it listens, and one it failed on again at the next look', async () => {
  const dir = runDir();
  const inbox = new RunInbox(dir);
  const handled: string[] = [];
  let failOnce = true;
  const got = new Promise<void>((resolve) => {
    const stop = inbox.listen(
      (r) => {
        if (r.kind === 'message' && failOnce) {
          failOnce = false;
          throw new Error('the session was busy');
        }
        handled.push(r.kind === 'message' ? r.text : `stop ${r.taskId}`);
        if (handled.length === 2) {
          stop();
          resolve();
        }
      },
      () => assert.fail('nothing unreadable was posted'),
    );
  });
  new RunInbox(dir).post({ kind: 'message', taskId: 'api', from: 'ana', text: 'also log the retries' });
  new RunInbox(dir).post({ kind: 'stop', taskId: 'api', from: 'ana' });
  await got;
  assert.deepEqual(handled, ['also log the retries', 'stop api']);
  // Removed once its handler resolved, which is just after the handler returned.
  while (inbox.read().requests.length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
});
