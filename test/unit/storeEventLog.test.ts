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

/** Runs `work` while counting the bytes fs.readSync reads from `file`, by position. */
function watchReads<T>(work: () => T): { result: T; before: (offset: number) => number; from: (offset: number) => number } {
  const fds = new Set<number>();
  const ranges: Array<[number, number]> = [];
  const { openSync, readSync } = fs;
  (fs as { openSync: unknown }).openSync = (...args: Parameters<typeof fs.openSync>) => {
    const fd = openSync(...args);
    if (args[0] === file) fds.add(fd);
    return fd;
  };
  (fs as { readSync: unknown }).readSync = (fd: number, buffer: Buffer, offset: number, length: number, position: number | null) => {
    const n = readSync(fd, buffer, offset, length, position);
    if (fds.has(fd)) {
      assert.equal(typeof position, 'number', 'reads say where they read');
      ranges.push([position!, position! + n]);
    }
    return n;
  };
  try {
    const result = work();
    const sum = (lo: number, hi: number) => ranges.reduce((total, [a, b]) => total + Math.max(0, Math.min(b, hi) - Math.max(a, lo)), 0);
    return { result, before: (offset) => sum(0, offset), from: (offset) => sum(offset, Infinity) };
  } finally {
    Object.assign(fs, { openSync, readSync });
  }
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

  it('reads only the bytes after fromOffset, checking first that the offset ends the line of afterSeq', () => {
    const events = writeEvents(3000);
    const text = fs.readFileSync(file, 'utf8');
    const size = Buffer.byteLength(text);
    // Where event 2990 ends: what a snapshot at seq 2990 records as its logBytes.
    const offset = Buffer.byteLength(text.split('\n').slice(0, 2990).join('\n')) + 1;
    const reads = watchReads(() => EventLog.read(file, { afterSeq: 2990, fromOffset: offset }));
    assert.deepEqual(reads.result.events, events.slice(2990));
    assert.deepEqual(reads.result.warnings, []);
    assert.equal(reads.result.lastSeq, 3000);
    assert.equal(reads.result.endOffset, size);
    assert.equal(reads.result.mismatch, undefined);
    // Before the offset only the last line is looked at (read backwards in small steps), not the log.
    assert.ok(reads.before(offset) < 16 * 1024 && offset > 100 * 1024, `${reads.before(offset)} of ${offset} bytes read before the offset`);
    assert.equal(reads.from(offset), size - offset, 'each byte after the offset is read once');

    // At the very end: nothing to read, and the offset still checked against the last line.
    assert.deepEqual(EventLog.read(file, { afterSeq: 3000, fromOffset: size }).events, []);
    assert.equal(EventLog.read(file, { afterSeq: 3000, fromOffset: size }).lastSeq, 3000);
    // The whole-file read says where the intact part ends, too.
    assert.equal(EventLog.read(file).endOffset, size);
  });

  it('reports a fromOffset that does not fit the log, delivering nothing', () => {
    writeEvents(10);
    const text = fs.readFileSync(file, 'utf8');
    const size = Buffer.byteLength(text);
    const lineEnd = (seq: number): number => Buffer.byteLength(text.split('\n').slice(0, seq).join('\n')) + 1;
    const cases: Array<[string, number, number, RegExp]> = [
      ['past the end', 7, size + 10, /the log is only \d+ bytes long/],
      ['inside a line', 7, lineEnd(7) - 3, /is not the start of a line/],
      ['the end of another event', 7, lineEnd(6), /the event before byte \d+ is seq 6, not 7/],
      ['at the start', 7, 0, /no event ends at byte 0/],
    ];
    for (const [what, afterSeq, fromOffset, reason] of cases) {
      const delivered: RunEvent[] = [];
      const result = EventLog.read(file, { afterSeq, fromOffset, onEvent: (e) => delivered.push(e) });
      assert.match(result.mismatch ?? '', reason, what);
      assert.deepEqual([result.events, delivered, result.lastSeq], [[], [], 0], what);
    }
    // A gap after the offset means the offset belongs to another history of the log.
    const lines = text.split('\n');
    lines.splice(7, 1);
    fs.writeFileSync(file, lines.join('\n'));
    const delivered: RunEvent[] = [];
    const gap = EventLog.read(file, { afterSeq: 7, fromOffset: lineEnd(7), onEvent: (e) => delivered.push(e) });
    assert.match(gap.mismatch ?? '', /the first event after byte \d+ is seq 9, not 8/);
    assert.deepEqual(delivered, []);
    assert.match(EventLog.read(path.join(dir, 'nope.jsonl'), { afterSeq: 1, fromOffset: 10 }).mismatch ?? '', /does not exist/);
  });

  it('hands events to onEvent instead of collecting them, in order', () => {
    const events = writeEvents(5);
    const delivered: RunEvent[] = [];
    const result = EventLog.read(file, { afterSeq: 2, onEvent: (e) => delivered.push(e) });
    assert.deepEqual(delivered, events.slice(2));
    assert.deepEqual(result.events, []);
    assert.throws(
      () =>
        EventLog.read(file, {
          onEvent: (e) => {
            if (e.seq === 3) throw new Error('stop here');
          },
        }),
      /stop here/,
    );
  });

  it('after fromOffset, ignores a torn last line, ends the intact part before it, and numbers a corrupt line from the top of the file', () => {
    const events = writeEvents(6);
    const text = fs.readFileSync(file, 'utf8');
    const offset = Buffer.byteLength(text.split('\n').slice(0, 4).join('\n')) + 1;
    const size = Buffer.byteLength(text);
    fs.appendFileSync(file, '{"seq":7,"runId":"r1","at":"2026-');
    const tail = EventLog.read(file, { afterSeq: 4, fromOffset: offset });
    assert.deepEqual(tail.events, events.slice(4));
    assert.equal(tail.endOffset, size, 'the torn line is not part of the intact log');
    assert.match(tail.warnings[0]!, /ignored a torn last line \(33 bytes\)/);
    assert.equal(EventLog.read(file).endOffset, size);
    const { log } = EventLog.open(file);
    assert.equal(log.size, size, 'open cuts the log back to the same place');
    log.close();

    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[4] = 'garbage';
    fs.writeFileSync(file, lines.join('\n'));
    assert.throws(
      () => EventLog.read(file, { afterSeq: 4, fromOffset: offset }),
      (error: unknown) => error instanceof CorruptLogError && error.line === 5,
    );
  });

  it('reads a missing file as empty', () => {
    assert.deepEqual(EventLog.read(path.join(dir, 'nope.jsonl')), { events: [], warnings: [], lastSeq: 0, endOffset: 0 });
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

  it('reads 100,000 events whole, or after a snapshot parsing only the events after it', () => {
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
    const whole = countingEventParses(() => EventLog.read(file));
    const tail = countingEventParses(() => EventLog.read(file, { afterSeq: 99_500 }));
    assert.equal(whole.result.events.length, 100_000);
    assert.equal(tail.result.events.length, 500);
    assert.equal(tail.result.lastSeq, 100_000);
    // How fast is the bench's business (bench/resumeLoad.ts); what a test can hold is that a read
    // after a snapshot parses the tail only, however long the log grows.
    assert.equal(whole.parsed, 100_000);
    assert.equal(tail.parsed, 500);
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

/** Runs `work`, counting the event lines it hands to JSON.parse. */
function countingEventParses<T>(work: () => T): { result: T; parsed: number } {
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (typeof text === 'string' && text.startsWith('{"seq":')) parsed += 1;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    return { result: work(), parsed };
  } finally {
    JSON.parse = parse;
  }
}
