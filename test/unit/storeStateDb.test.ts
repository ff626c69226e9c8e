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

  it('stores a copy of a snapshot, so later changes to the live state do not leak into it', () => {
    const { db } = StateDb.open(file, rebuilt);
    db.putRun(entry('r1'));
    const live = { runId: 'r1', lastSeq: 2, warnings: [] as string[] } as unknown as RunState;
    db.setSnapshot('r1', live);
    live.warnings.push('later');
    live.lastSeq = 3;
    assert.deepEqual(db.run('r1')?.snapshot, { seq: 2, state: { runId: 'r1', lastSeq: 2, warnings: [] } });
    db.putRun({ ...entry('r1'), lastSeq: 3 });
    assert.equal(db.run('r1')?.snapshot?.seq, 2, 'updating the index entry keeps the snapshot');
    db.removeRun('r1');
    assert.equal(db.run('r1'), undefined);
  });
});
