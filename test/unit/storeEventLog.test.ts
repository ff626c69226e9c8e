import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RunEvent } from '../../src/engine/domain/events';
import { CorruptLogError, EventLog } from '../../src/engine/store/eventLog';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-log-'));
  file = path.join(dir, 'runs', 'r1', 'events.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const event = (seq: number, message = `event ${seq}`): RunEvent => ({
  seq,
  runId: 'r1',
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
  type: 'warning',
  message,
});

function writeEvents(n: number): RunEvent[] {
  const { log } = EventLog.open(file);
  const events = Array.from({ length: n }, (_, i) => event(i + 1));
  for (const e of events) log.append(e);
  log.close();
  return events;
}

describe('EventLog', () => {
  it('round-trips appended events, one JSON line each, seq first', () => {
    const events = writeEvents(3);
    const { events: read, warnings, lastSeq } = EventLog.read(file);
    assert.deepEqual(read, events);
    assert.deepEqual(warnings, []);
    assert.equal(lastSeq, 3);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.equal(lines.length, 4);
    assert.equal(lines[3], '');
    assert.match(lines[0]!, /^\{"seq":1,/);
  });

  it('returns only the tail after afterSeq, and the last seq of the whole file', () => {
    writeEvents(10);
    const { events, lastSeq } = EventLog.read(file, { afterSeq: 7 });
    assert.deepEqual(
      events.map((e) => e.seq),
      [8, 9, 10],
    );
    assert.equal(lastSeq, 10);
    assert.deepEqual(EventLog.read(file, { afterSeq: 10 }).events, []);
  });

  it('reads a missing file as empty', () => {
    assert.deepEqual(EventLog.read(path.join(dir, 'nope.jsonl')), { events: [], warnings: [], lastSeq: 0 });
    assert.equal(EventLog.lastSeq(path.join(dir, 'nope.jsonl')), 0);
  });

  it('ignores a torn last line on read, and open cuts it off so the next append starts clean', () => {
    const events = writeEvents(3);
    const torn = '{"seq":4,"runId":"r1","at":"2026-01-01T0';
    fs.appendFileSync(file, torn);

    const read = EventLog.read(file);
    assert.deepEqual(read.events, events);
    assert.equal(read.lastSeq, 3);
    assert.deepEqual(read.warnings, [`${file}: ignored a torn last line (${torn.length} bytes) left by an interrupted write`]);
    assert.equal(EventLog.lastSeq(file), 3);

    const { log, warnings } = EventLog.open(file);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /events\.jsonl: ignored a torn last line \(40 bytes\) left by an interrupted write; its bytes were saved to events\.jsonl\.torn/);
    assert.equal(fs.readFileSync(`${file}.torn`, 'utf8'), `${torn}\n`);
    log.append(event(4));
    log.close();

    const after = EventLog.read(file);
    assert.deepEqual(after.warnings, []);
    assert.deepEqual(
      after.events.map((e) => e.seq),
      [1, 2, 3, 4],
    );
  });

  it('treats an unparsable last line that has its newline as torn too', () => {
    writeEvents(2);
    fs.appendFileSync(file, '{"seq":3,"runId":"r1"\u0000\u0000\n');
    const read = EventLog.read(file);
    assert.equal(read.events.length, 2);
    assert.equal(read.warnings.length, 1);
    const { log, warnings } = EventLog.open(file);
    assert.equal(warnings.length, 1);
    log.append(event(3));
    log.close();
    assert.deepEqual(EventLog.read(file).warnings, []);
    assert.equal(EventLog.read(file).lastSeq, 3);
  });

  it('refuses a corrupt line that is not the last one, naming the file and line', () => {
    writeEvents(4);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[1] = '{"seq":2,"runId":"r1", garbage';
    fs.writeFileSync(file, lines.join('\n'));
    assert.throws(
      () => EventLog.read(file),
      (error: unknown) => {
        assert.ok(error instanceof CorruptLogError);
        assert.equal(error.line, 2);
        assert.equal(error.file, file);
        assert.match(error.message, /events\.jsonl, line 2: not a valid event line/);
        return true;
      },
    );
    // A bad line followed only by a torn fragment is still not one interrupted write.
    const twoBad = path.join(dir, 'two-bad.jsonl');
    fs.writeFileSync(twoBad, `${JSON.stringify(event(1))}\nnot json\n{"seq":3`);
    assert.throws(() => EventLog.read(twoBad), CorruptLogError);
  });

  it('refuses a seq that does not increase', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, [event(1), event(2), event(2)].map((e) => `${JSON.stringify(e)}\n`).join(''));
    assert.throws(() => EventLog.read(file), /line 3: seq 2 does not follow seq 2/);
  });

  it('reads lines written in another key order (not only its own)', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { seq: _seq, ...body } = event(1);
    fs.writeFileSync(file, `${JSON.stringify({ ...body, seq: 1 })}\n${JSON.stringify(event(2))}\n`);
    assert.deepEqual(
      EventLog.read(file, { afterSeq: 1 }).events.map((e) => e.seq),
      [2],
    );
    assert.equal(EventLog.read(file, { afterSeq: 1 }).lastSeq, 2);
  });

  it('reads 100,000 events quickly, whole or after a snapshot', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const lines: string[] = [];
    for (let seq = 1; seq <= 100_000; seq += 1) {
      lines.push(
        JSON.stringify({
          seq,
          runId: 'r1',
          at: '2026-01-01T00:00:00.000Z',
          type: 'runner_call',
          taskId: 'a',
          role: 'actor',
          agent: 'scripted',
          model: 'm',
          status: 'ok',
          usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 },
          durationMs: 12,
          quotaHit: false,
        }),
      );
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    // The floor: what reading and parsing the same file costs at all on this machine, now.
    let started = performance.now();
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) if (line) JSON.parse(line);
    const floorMs = performance.now() - started;
    started = performance.now();
    const all = EventLog.read(file);
    const wholeMs = performance.now() - started;
    started = performance.now();
    const tail = EventLog.read(file, { afterSeq: 99_500 });
    const tailMs = performance.now() - started;
    assert.equal(all.events.length, 100_000);
    assert.equal(tail.events.length, 500);
    assert.equal(tail.lastSeq, 100_000);
    // Relative to the floor, so a loaded CI machine does not fail it; unloaded, the whole
    // read takes about 250 ms here and the tail read about a fifth of that.
    const report = `whole ${wholeMs.toFixed(0)} ms, tail ${tailMs.toFixed(0)} ms, floor ${floorMs.toFixed(0)} ms`;
    assert.ok(wholeMs < Math.max(3 * floorMs, 1000), report);
    assert.ok(tailMs < wholeMs, report);
  });

  it('appends through the one open descriptor, never reading or reopening the file', () => {
    const { log } = EventLog.open(file);
    const watched = ['openSync', 'readSync', 'readFileSync', 'fstatSync', 'statSync', 'closeSync', 'writeSync', 'fsyncSync'] as const;
    const calls = Object.fromEntries(watched.map((name) => [name, 0])) as Record<(typeof watched)[number], number>;
    const originals = watched.map((name) => [name, fs[name]] as const);
    for (const [name, original] of originals) {
      (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        calls[name] += 1;
        return (original as (...a: unknown[]) => unknown)(...args);
      };
    }
    try {
      for (let seq = 1; seq <= 200; seq += 1) log.append(event(seq, 'x'.repeat(seq * 10)));
    } finally {
      for (const [name, original] of originals) (fs as unknown as Record<string, unknown>)[name] = original;
      log.close();
    }
    assert.deepEqual(
      { open: calls.openSync, read: calls.readSync + calls.readFileSync, stat: calls.fstatSync + calls.statSync, close: calls.closeSync },
      { open: 0, read: 0, stat: 0, close: 0 },
    );
    assert.equal(calls.fsyncSync, 200, 'every append is fsync-ed before it returns');
    assert.equal(calls.writeSync, 200);
    assert.equal(EventLog.read(file).events.length, 200);
  });

  it('cuts a half-written line back off when an append fails, so the log stays readable', () => {
    const { log } = EventLog.open(file);
    log.append(event(1));
    const original = fs.writeSync;
    // The disk fills up in the middle of the line: half of it really lands in the file.
    (fs as { writeSync: unknown }).writeSync = (fd: number, buffer: Buffer, offset: number, length: number) => {
      original(fd, buffer, offset, Math.floor(length / 2));
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    try {
      assert.throws(() => log.append(event(2)), /ENOSPC/);
    } finally {
      (fs as { writeSync: unknown }).writeSync = original;
    }
    log.append(event(2));
    log.close();
    const read = EventLog.read(file);
    assert.deepEqual(read.warnings, []);
    assert.deepEqual(
      read.events.map((e) => e.seq),
      [1, 2],
    );
  });

  it('refuses to append once closed', () => {
    const { log } = EventLog.open(file);
    log.close();
    assert.throws(() => log.append(event(1)), /is closed/);
  });
});
