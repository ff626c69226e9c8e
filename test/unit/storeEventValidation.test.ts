import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EVENT_SCHEMA_VERSION, type RunEvent } from '../../src/engine/domain/events';
import { foldEvents, UnsupportedEventError } from '../../src/engine/domain/projection';
import { CorruptLogError, EventLog } from '../../src/engine/store/eventLog';
import { EVENT_TYPES_WITH_SCHEMAS, eventProblems } from '../../src/engine/store/eventSchemas';
import { loadRunState } from '../../src/engine/store/runLoader';
import { EventBuilder } from '../helpers/eventBuilder';

// What the log reader does with an event line that is complete JSON with a valid envelope
// (seq, runId, type) but whose fields are not what its type holds: it names the line, the
// event's type and each bad field, as damage to the log (exit 74), wherever the line is.

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-validate-'));
  file = path.join(dir, 'runs', 'run-1', 'events.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Six events of a real stream: run_created, plan_approved, task a to GATING, its gate (failed), then MECHANICAL_FAILED. */
function stream(): RunEvent[] {
  const b = new EventBuilder();
  b.add({ type: 'plan_approved', by: 'autopilot' });
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
  b.add({ type: 'gate_result', taskId: 'a', attempt: 1, passed: false, commands: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 5, output: 'fail' }] });
  b.move('a', 'MECHANICAL_FAILED');
  return b.events;
}

/** As the store writes a line: seq first. */
const line = (event: object): string => {
  const { seq, ...rest } = event as { seq: number };
  return JSON.stringify({ seq, ...rest });
};

function writeLog(events: object[]): void {
  fs.writeFileSync(file, events.map((e) => `${line(e)}\n`).join(''));
}

/** The stream with event `seq` replaced by what `damage` makes of a copy of it. */
function damaged(seq: number, damage: (event: Record<string, any>) => void): RunEvent[] {
  return stream().map((e) => {
    if (e.seq !== seq) return e;
    const copy = structuredClone(e) as Record<string, any>;
    damage(copy);
    return copy as RunEvent;
  });
}

function corruptError(read: () => unknown): CorruptLogError {
  let caught: unknown;
  try {
    read();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof CorruptLogError, `expected a CorruptLogError, got ${String(caught)}`);
  return caught;
}

const BREAKAGES: Array<{ kind: string; seq: number; damage: (e: Record<string, any>) => void; type: string; field: RegExp }> = [
  {
    kind: 'a field of the wrong type',
    seq: 3,
    damage: (e) => (e.taskId = 7),
    type: 'task_transition',
    field: /taskId: Invalid input: expected string, received number \(found 7\)/,
  },
  {
    kind: 'a value outside its enum',
    seq: 4,
    damage: (e) => (e.to = 'DONE'),
    type: 'task_transition',
    field: /to: Invalid option: expected one of "PENDING"\|.*\(found "DONE"\)/,
  },
  {
    kind: 'a required field missing',
    seq: 5,
    damage: (e) => delete e.commands,
    type: 'gate_result',
    field: /commands: missing\. /,
  },
  {
    kind: 'a field deep inside the event',
    seq: 5,
    damage: (e) => (e.commands[0].exitCode = '1'),
    type: 'gate_result',
    field: /commands\.0\.exitCode: Invalid input: expected number, received string \(found "1"\)/,
  },
  {
    kind: 'a field of the envelope',
    seq: 2,
    damage: (e) => (e.at = 1767225600000),
    type: 'plan_approved',
    field: /at: Invalid input: expected string, received number/,
  },
  {
    kind: 'a type this format version does not have',
    seq: 2,
    damage: (e) => (e.type = 'plan_approvd'),
    type: 'plan_approvd',
    field: /type: "plan_approvd" is not an event type of format version 8 or below/,
  },
];

describe('event schemas', () => {
  it('compile for every event type (each is compiled on first read, so a schema zod cannot compile would otherwise fail only when a log holds its type)', () => {
    assert.equal(EVENT_TYPES_WITH_SCHEMAS.length, 56);
    for (const type of EVENT_TYPES_WITH_SCHEMAS) {
      assert.doesNotThrow(() => eventProblems({ seq: 1, runId: 'r1', at: '2026-12-02T00:00:00.000Z', type } as unknown as RunEvent), type);
    }
  });
});

describe('event payloads read back from the log', () => {
  for (const breakage of BREAKAGES) {
    it(`refuses ${breakage.kind}, naming the line, the event's type and the field`, () => {
      writeLog(damaged(breakage.seq, breakage.damage));
      for (const read of [() => EventLog.read(file), () => loadRunState(file, 'run-1')]) {
        const error = corruptError(read);
        assert.equal(error.line, breakage.seq);
        assert.equal(error.damage, 'malformed');
        assert.equal(error.kind, 'storage');
        assert.equal(error.exitCode, 74);
        assert.equal(error.hint, 'Repair or remove the line by hand.');
        assert.ok(error.message.startsWith(`${file}, line ${breakage.seq}: event ${breakage.seq} (${breakage.type}) is malformed: `), error.message);
        assert.match(error.message, breakage.field);
        assert.match(error.message, /The line is complete, so no interrupted write left it so/);
      }
    });
  }

  it('names every bad field of the line, not only the first', () => {
    writeLog(
      damaged(4, (e) => {
        e.taskId = null;
        e.reason = ['not', 'text'];
        delete e.event;
      }),
    );
    const error = corruptError(() => EventLog.read(file));
    assert.match(error.detail, /: taskId: Invalid input: expected string, received null; event: missing; reason: Invalid input: expected string, received array \(found \["not","text"\]\)$/);
  });

  it('refuses a malformed last line too: it is complete, so it is no torn write to cut off', () => {
    const events = damaged(6, (e) => (e.event = 'MECHANICAL_FAILD'));
    writeLog(events);
    const before = fs.readFileSync(file, 'utf8');
    assert.equal(corruptError(() => EventLog.read(file)).line, 6);
    const { log, warnings } = EventLog.open(file);
    log.close();
    assert.deepEqual(warnings, []);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'open leaves the line where it is');
    assert.equal(fs.existsSync(`${file}.torn`), false);
    // A line that is not JSON at the end is still a torn write, ignored with a warning.
    writeLog(stream());
    fs.appendFileSync(file, '{"seq":7,"runId":"run-1","type":"warn\n');
    assert.equal(EventLog.read(file).warnings.length, 1);
  });

  it('names the line counted from the top of the file when only the tail after a snapshot is read, and never discards the snapshot over it', () => {
    const events = damaged(5, (e) => (e.passed = 'no'));
    writeLog(events);
    const text = fs.readFileSync(file, 'utf8');
    const logBytes = Buffer.byteLength(text.split('\n').slice(0, 3).join('\n')) + 1;
    const state = foldEvents(events.slice(0, 3))!;
    const error = corruptError(() => loadRunState(file, 'run-1', { seq: 3, logBytes, state }));
    assert.equal(error.line, 5);
    assert.match(error.message, /passed: Invalid input: expected boolean, received string/);
  });

  it('does not parse the lines a snapshot covers, as before', () => {
    writeLog(damaged(2, (e) => (e.by = 'robot')));
    const read = EventLog.read(file, { afterSeq: 3 });
    assert.deepEqual(
      read.events.map((e) => e.seq),
      [4, 5, 6],
    );
    assert.throws(() => EventLog.read(file, { afterSeq: 1 }), /line 2: event 2 \(plan_approved\) is malformed: by: Invalid option/);
  });

  it('lets through fields it does not know, as written: a field a release dropped does not make its logs unloadable', () => {
    const events = damaged(5, (e) => (e.droppedField = { kept: true }));
    writeLog(events);
    const read = EventLog.read(file);
    assert.deepEqual(read.events, events);
    assert.deepEqual((read.events[4] as unknown as Record<string, unknown>).droppedField, { kept: true });
    assert.equal(loadRunState(file, 'run-1').state.lastSeq, 6);
  });

  it('accepts a log written by release 0.1 (no `v`, none of the fields added since)', () => {
    const b = new EventBuilder('run-1', undefined, 1);
    b.add({ type: 'plan_approved', by: 'autopilot' });
    b.move('a', 'BUILD_STARTED');
    b.add({ type: 'worktree_prepared', taskId: 'a', branch: 'taskloom/run-1/a', path: '/repo/.taskloom/worktrees/run-1/a', baseCommit: 'a'.repeat(40), fresh: true });
    b.move('a', 'BUILD_FINISHED');
    b.add({ type: 'gate_result', taskId: 'a', attempt: 1, passed: true, commands: [{ command: 'npm test', exitCode: 0, timedOut: false, durationMs: 5, output: 'ok' }] });
    b.move('a', 'MECHANICAL_PASSED');
    b.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict: { decision: 'green', summary: 'fine', findings: [] }, blocking: 0 });
    b.add({ type: 'run_finished', status: 'paused', summary: 'paused' });
    assert.ok(b.events.every((e) => e.v === undefined));
    writeLog(b.events);
    assert.deepEqual(EventLog.read(file).events, b.events);
  });

  it('leaves an event of a newer format version to the projection, which asks for an update instead of calling the log damaged', () => {
    const events: object[] = stream();
    events.push({ seq: 7, runId: 'run-1', at: '2026-01-01T00:00:07.000Z', v: EVENT_SCHEMA_VERSION + 1, type: 'task_teleported', taskId: 42 });
    writeLog(events);
    assert.equal(EventLog.read(file).events.length, 7);
    assert.throws(
      () => loadRunState(file, 'run-1'),
      (error: unknown) => error instanceof UnsupportedEventError && /Update Taskloom/.test(error.hint ?? '') && error.message.includes(`reads up to ${EVENT_SCHEMA_VERSION}`),
    );
  });
});
