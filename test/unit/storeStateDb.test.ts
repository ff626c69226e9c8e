import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RunState } from '../../src/engine/domain/runState';
import { emptyStateData, StateDb, type StateData } from '../../src/engine/store/stateDb';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-db-'));
  file = path.join(dir, 'state.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const entry = (runId: string) => ({
  runId,
  goal: `goal of ${runId}`,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  status: 'running' as const,
  lastSeq: 2,
});

const rebuilt = (): StateData => ({ ...emptyStateData(), lastRunId: 'from-logs', runs: { 'from-logs': entry('from-logs') } });
const backups = (): string[] => fs.readdirSync(dir).filter((name) => name.startsWith('state.json.corrupt-'));

describe('StateDb', () => {
  it('starts empty without a file, and reads back what it wrote', () => {
    let rebuilds = 0;
    const { db, warnings } = StateDb.open(file, () => (rebuilds++, rebuilt()));
    assert.deepEqual(warnings, []);
    assert.deepEqual(db.runs(), []);
    db.putRun(entry('r1'));
    db.setLastRunId('r1');
    db.write();
    const again = StateDb.open(file, () => (rebuilds++, rebuilt())).db;
    assert.deepEqual(again.run('r1'), entry('r1'));
    assert.equal(again.lastRunId, 'r1');
    assert.equal(rebuilds, 0);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).schemaVersion, 1);
  });

  for (const [what, content, message] of [
    ['invalid JSON', '{"schemaVersion": 1, "runs": {', /state\.json was not valid JSON/],
    ['another schemaVersion', JSON.stringify({ schemaVersion: 2, runs: {} }), /state\.json was written with schemaVersion 2, not 1/],
    ['a wrong shape', JSON.stringify({ schemaVersion: 1, runs: [] }), /state\.json was not a Taskloom state file \(runs: /],
    ['a bad run entry', JSON.stringify({ schemaVersion: 1, runs: { r1: { runId: 'r1' } } }), /not a Taskloom state file \(runs\.r1\.goal/],
    ['null at the top level', 'null', /state\.json was not a Taskloom state file \(top level: null, not an object\)/],
    ['an entry filed under another id', JSON.stringify({ schemaVersion: 1, runs: { r2: entry('r1') } }), /not consistent/],
  ] as const) {
    it(`moves a file with ${what} aside and rebuilds`, () => {
      fs.writeFileSync(file, content);
      const { db, warnings } = StateDb.open(file, rebuilt);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, message);
      assert.match(warnings[0]!, /moved to state\.json\.corrupt-\S+ and the index was rebuilt from the event logs/);
      assert.equal(backups().length, 1);
      assert.equal(fs.readFileSync(path.join(dir, backups()[0]!), 'utf8'), content, 'the bad file is kept as it was');
      assert.equal(db.lastRunId, 'from-logs');
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), rebuilt(), 'the rebuilt index is written at once');
    });
  }

  it('leaves a bad file alone when read-only, rebuilding in memory', () => {
    fs.writeFileSync(file, 'garbage');
    const { db, warnings } = StateDb.open(file, rebuilt, { readOnly: true });
    assert.match(warnings[0]!, /rebuilt from the event logs in memory \(read-only, the file was left as it is\)/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'garbage');
    assert.deepEqual(backups(), []);
    assert.equal(db.run('from-logs')?.goal, 'goal of from-logs');
    assert.throws(() => db.write(), /read-only/);
  });

  it('serialises a snapshot when it is taken, so later changes to the live state do not leak into it', () => {
    const { db } = StateDb.open(file, rebuilt);
    db.putRun(entry('r1'));
    const live = { runId: 'r1', lastSeq: 2, warnings: [] as string[] } as unknown as RunState;
    db.setSnapshot('r1', live, 120);
    live.warnings.push('later');
    live.lastSeq = 3;
    assert.deepEqual(db.snapshot('r1'), { seq: 2, logBytes: 120 });
    db.putRun({ ...entry('r1'), lastSeq: 3 });
    assert.equal(db.snapshot('r1')?.seq, 2, 'updating the index entry keeps the snapshot');
    assert.equal('snapshot' in db.run('r1')!, false, 'index entries do not carry snapshots');
    db.write();
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')).runs.r1.snapshot, { seq: 2, logBytes: 120, state: { runId: 'r1', lastSeq: 2, warnings: [] } });
    const again = StateDb.open(file, rebuilt).db;
    assert.deepEqual(again.takeSnapshot('r1'), { seq: 2, logBytes: 120, state: { runId: 'r1', lastSeq: 2, warnings: [] } });
    db.removeRun('r1');
    assert.equal(db.run('r1'), undefined);
    assert.equal(db.snapshot('r1'), undefined);
  });

  it('writes state.json as pure ASCII (escaping the rest) and reads back the same text', () => {
    const { db } = StateDb.open(file, rebuilt);
    const goal = 'Café ✔ — 😀 \u2028 "quoted"';
    db.putRun({ ...entry('r1'), goal });
    db.setSnapshot('r1', { runId: 'r1', lastSeq: 2, warnings: [`✖ ${goal}`] } as unknown as RunState, 10);
    db.write();
    const bytes = fs.readFileSync(file);
    assert.ok(bytes.every((b) => b < 0x80), 'only ASCII bytes');
    const again = StateDb.open(file, rebuilt).db;
    assert.equal(again.run('r1')?.goal, goal);
    assert.deepEqual(again.takeSnapshot('r1')?.state, { runId: 'r1', lastSeq: 2, warnings: [`✖ ${goal}`] });
    // A file written as UTF-8 (by an earlier version, or by hand) reads as well.
    fs.writeFileSync(file, JSON.stringify({ schemaVersion: 1, runs: { r2: { ...entry('r2'), goal } } }));
    assert.equal(StateDb.open(file, rebuilt).db.run('r2')?.goal, goal);
  });

  it('hands a snapshot read from the file to its loader without a copy, and keeps it in the file only while it is not replaced', () => {
    const state = (runId: string, lastSeq: number) => ({ runId, lastSeq, warnings: [] as string[] }) as unknown as RunState;
    fs.writeFileSync(
      file,
      JSON.stringify({
        schemaVersion: 1,
        runs: {
          r1: { ...entry('r1'), snapshot: { seq: 2, logBytes: 300, state: state('r1', 2) } },
          r2: { ...entry('r2'), snapshot: { seq: 2, state: state('r2', 2) } },
        },
      }),
    );
    const { db } = StateDb.open(file, rebuilt);
    assert.ok(db.fileHasSnapshotAt('r1', 2));
    const taken = db.takeSnapshot('r1')!;
    assert.deepEqual(taken, { seq: 2, logBytes: 300, state: state('r1', 2) });
    // The loader owns it now and replays onto it in place; the index must not write that.
    taken.state.lastSeq = 5;
    taken.state.warnings.push('replayed');
    assert.equal(db.takeSnapshot('r1'), undefined, 'handed out once');
    assert.deepEqual(db.snapshot('r1'), { seq: 2, logBytes: 300 }, 'what the file holds is still known');
    assert.equal(db.canWriteSnapshotAt('r1', 2), false);
    assert.deepEqual(db.snapshot('r2'), { seq: 2 }, 'a snapshot from before logBytes was recorded');

    db.write();
    let written = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(written.runs.r1.snapshot, undefined, 'a snapshot handed out and not replaced is left out, never written changed');
    assert.deepEqual(written.runs.r2.snapshot, { seq: 2, state: state('r2', 2) });
    assert.equal(db.fileHasSnapshotAt('r1', 2), false);

    db.setSnapshot('r1', taken.state, 500);
    assert.ok(db.canWriteSnapshotAt('r1', 5));
    assert.equal(db.fileHasSnapshotAt('r1', 5), false, 'not in the file until written');
    db.write();
    written = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(written.runs.r1.snapshot, { seq: 5, logBytes: 500, state: { runId: 'r1', lastSeq: 5, warnings: ['replayed'] } });
    assert.ok(db.fileHasSnapshotAt('r1', 5));
    assert.equal(db.fileLength, fs.readFileSync(file, 'utf8').length);
  });
});
