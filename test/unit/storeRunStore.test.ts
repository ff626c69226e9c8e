import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RunEventBody } from '../../src/engine/domain/events';
import { foldEvents } from '../../src/engine/domain/projection';
import type { RunState } from '../../src/engine/domain/runState';
import { TaskStateMachine } from '../../src/engine/domain/taskStateMachine';
import type { TaskEvent } from '../../src/engine/domain/taskStates';
import { EventLog } from '../../src/engine/store/eventLog';
import { LockHeldError } from '../../src/engine/store/lock';
import { RunNotFoundError, RunStore, SNAPSHOT_LOG_GROWTH, SNAPSHOT_MIN_BYTES, type RunCreatedBody } from '../../src/engine/store/runStore';
import { runCreatedBody } from '../helpers/eventBuilder';

const STORE_MODULE = path.resolve(import.meta.dirname, '../../src/engine/store/runStore.ts');

let repo: string;
const open: RunStore[] = [];
beforeEach(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-store-'));
});
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  fs.rmSync(repo, { recursive: true, force: true });
});

function openStore(root = repo, options: { readOnly?: boolean } = {}) {
  const warnings: string[] = [];
  const opened = RunStore.open(root, { command: 'taskloom test', onWarning: (w) => warnings.push(w), ...options });
  open.push(opened.store);
  return { store: opened.store, openWarnings: opened.warnings, backgroundWarnings: warnings };
}

function closeStore(store: RunStore): void {
  store.close();
  open.splice(open.indexOf(store), 1);
}

// --- a tiny builder: run_created with a two-task plan, and transitions that follow the state machine

const created = (goal = 'Add rate limiting'): RunCreatedBody =>
  runCreatedBody(
    {
      goal,
      rationale: 'b builds on a',
      tasks: [
        { id: 'a', title: 'Token bucket', description: 'bucket', acceptance: ['tests pass'], dependsOn: [] },
        { id: 'b', title: 'Middleware', description: 'middleware', acceptance: [], dependsOn: ['a'] },
      ],
    },
    { baseCommit: 'f'.repeat(40) },
  );

function move(store: RunStore, runId: string, taskId: string, ...events: TaskEvent[]): void {
  for (const event of events) {
    const from = store.state(runId).tasks[taskId]!.state;
    const to = TaskStateMachine.next(from, event, taskId);
    store.append(runId, { type: 'task_transition', taskId, event, from, to, reason: `${event.toLowerCase()} (test)` });
  }
}

const call = (taskId: string | null, n = 1): RunEventBody => ({
  type: 'runner_call',
  taskId,
  role: 'actor',
  agent: 'scripted',
  model: 'm',
  status: 'ok',
  usage: { inputTokens: 100 * n, outputTokens: 10 * n, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 * n },
  durationMs: 5,
  quotaHit: false,
});

/** A run with some of everything: task a goes green through a gate failure, b needs a human. */
function busyRun(store: RunStore, runId = 'run-1'): void {
  store.createRun(runId, created());
  store.append(runId, { type: 'plan_approved', by: 'autopilot' });
  move(store, runId, 'a', 'BUILD_STARTED');
  store.append(runId, call('a'));
  move(store, runId, 'a', 'BUILD_FINISHED');
  store.append(runId, { type: 'gate_result', taskId: 'a', attempt: 1, passed: false, commands: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 3, output: 'failing' }] });
  move(store, runId, 'a', 'MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
  move(store, runId, 'b', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'MALFORMED_GIVEUP');
}

const logOf = (runId: string, root = repo) => path.join(root, '.taskloom', 'runs', runId, 'events.jsonl');
const foldLog = (runId: string, root = repo): RunState => foldEvents(EventLog.read(logOf(runId, root)).events)!;
/**
 * States compared as the JSON they are stored as: the projection assigns `undefined` to
 * fields it clears (pausedReason after a resume, ...), and a snapshot read back from
 * state.json simply lacks those keys, which deepStrictEqual would count as a difference.
 */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const readDb = (root = repo) => JSON.parse(fs.readFileSync(path.join(root, '.taskloom', 'state.json'), 'utf8'));
const writeDb = (data: unknown, root = repo) => fs.writeFileSync(path.join(root, '.taskloom', 'state.json'), JSON.stringify(data));

const logSize = (runId: string, root = repo): number => fs.statSync(logOf(runId, root)).size;
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Content and inode: an atomic rewrite (temp file + rename) changes the inode even when the content is the same. */
const fileIdentity = (file: string) => ({ ino: fs.statSync(file).ino, content: fs.readFileSync(file, 'utf8') });

/**
 * Runs `work` while counting what is read of a run's log: bytes (fs.readSync on it) and event
 * lines parsed (JSON.parse of a line starting `{"seq":`).
 */
function watchLog<T>(runId: string, work: () => T, root = repo): { result: T; bytesRead: number; parsedEvents: number } {
  const file = logOf(runId, root);
  const fds = new Set<number>();
  let bytesRead = 0;
  let parsedEvents = 0;
  const { openSync, readSync, closeSync } = fs;
  const parse = JSON.parse;
  (fs as { openSync: unknown }).openSync = (...args: Parameters<typeof fs.openSync>) => {
    const fd = openSync(...args);
    if (args[0] === file) fds.add(fd);
    return fd;
  };
  (fs as { closeSync: unknown }).closeSync = (fd: number) => {
    fds.delete(fd);
    closeSync(fd);
  };
  (fs as { readSync: unknown }).readSync = (fd: number, ...rest: unknown[]) => {
    const n = (readSync as (...a: unknown[]) => number)(fd, ...rest);
    if (fds.has(fd)) bytesRead += n;
    return n;
  };
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (typeof text === 'string' && text.startsWith('{"seq":')) parsedEvents += 1;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    return { result: work(), bytesRead, parsedEvents };
  } finally {
    Object.assign(fs, { openSync, readSync, closeSync });
    JSON.parse = parse;
  }
}

/** What the disk holds if the process died right now (the copy has no lock: its holder is gone). */
function closeStoresUnder(root: string): void {
  for (const store of open.filter((s) => s.repoRoot === root)) closeStore(store);
}

function crashImage(): string {
  const image = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-crash-'));
  fs.cpSync(path.join(repo, '.taskloom'), path.join(image, '.taskloom'), { recursive: true });
  fs.rmSync(path.join(image, '.taskloom', 'lock'), { force: true });
  return image;
}

describe('RunStore', () => {
  it('creates .taskloom with the lock, the index, the log and the derived files', () => {
    const { store, openWarnings } = openStore();
    assert.deepEqual(openWarnings, []);
    busyRun(store);
    const dir = path.join(repo, '.taskloom');
    assert.ok(fs.existsSync(path.join(dir, 'lock')));
    assert.ok(fs.existsSync(path.join(dir, 'state.json')));
    for (const name of ['events.jsonl', 'run.json', 'DECISIONS.md']) assert.ok(fs.existsSync(path.join(dir, 'runs', 'run-1', name)), name);
    closeStore(store);
    assert.equal(fs.existsSync(path.join(dir, 'lock')), false, 'close releases the lock');
  });

  it('assigns continuous seqs, the run id and the time, and keeps the live state equal to a fold of the log', () => {
    const { store } = openStore();
    busyRun(store);
    const { events, warnings } = EventLog.read(logOf('run-1'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
    );
    assert.ok(events.every((e) => e.runId === 'run-1' && !Number.isNaN(Date.parse(e.at))));
    assert.deepEqual(store.state('run-1'), foldEvents(events));
    assert.equal(store.state('run-1').tasks.b!.state, 'NEEDS_HUMAN');
    assert.deepEqual(store.events('run-1', { afterSeq: events.length - 1 }).events, [events.at(-1)]);
  });

  it('continues the seq after reopening, and loadRun equals an uninterrupted fold with or without a snapshot', () => {
    let { store } = openStore();
    busyRun(store);
    const lastSeq = store.state('run-1').lastSeq;
    closeStore(store);
    assert.equal(readDb().runs['run-1'].snapshot.seq, lastSeq, 'close leaves a snapshot at the end of the log');

    ({ store } = openStore());
    const withSnapshot = store.loadRun('run-1');
    assert.deepEqual(withSnapshot.warnings, []);
    assert.deepEqual(plain(withSnapshot.state), plain(foldLog('run-1')));
    const event = store.append('run-1', { type: 'human_decision', taskId: 'b', action: 'retry', note: 'try again' });
    assert.equal(event.seq, lastSeq + 1);
    closeStore(store);

    const db = readDb();
    delete db.runs['run-1'].snapshot;
    writeDb(db);
    ({ store } = openStore());
    const withoutSnapshot = store.loadRun('run-1');
    assert.deepEqual(withoutSnapshot.warnings, []);
    assert.deepEqual(withoutSnapshot.state, foldLog('run-1'));
    assert.equal(withoutSnapshot.state.lastSeq, lastSeq + 1);
  });

  it('replays only the tail after the snapshot when the process died between snapshots', () => {
    const { store } = openStore();
    busyRun(store);
    store.flush();
    const snapshotSeq = store.state('run-1').lastSeq;
    for (let i = 0; i < 5; i += 1) store.append('run-1', call('a'));
    const image = crashImage();
    try {
      assert.equal(readDb(image).runs['run-1'].snapshot.seq, snapshotSeq);
      assert.equal(readDb(image).runs['run-1'].lastSeq, snapshotSeq, 'the index on disk lags the log');
      const crashed = openStore(image);
      assert.equal(crashed.store.listRuns()[0]!.lastSeq, snapshotSeq + 5, 'the index caught up with the log on open');
      const loaded = crashed.store.loadRun('run-1');
      assert.deepEqual(loaded.warnings, []);
      assert.deepEqual(plain(loaded.state), plain(foldLog('run-1', image)));
      assert.deepEqual(plain(loaded.state), plain(store.state('run-1')));
    } finally {
      closeStoresUnder(image);
      fs.rmSync(image, { recursive: true, force: true });
    }
  });

  it('ignores a torn last line with a warning, and the next append starts clean', () => {
    const { store } = openStore();
    busyRun(store);
    const lastSeq = store.state('run-1').lastSeq;
    const image = crashImage();
    try {
      fs.appendFileSync(logOf('run-1', image), `{"seq":${lastSeq + 1},"runId":"run-1","at":"2026-`);
      const reader = openStore(image, { readOnly: true });
      const readOnlyLoad = reader.store.loadRun('run-1');
      assert.match(readOnlyLoad.warnings[0]!, /events\.jsonl: ignored a torn last line \(\d+ bytes\) left by an interrupted write$/);
      assert.equal(fs.existsSync(`${logOf('run-1', image)}.torn`), false, 'a read-only store repairs nothing');
      closeStore(reader.store);

      const crashed = openStore(image);
      const loaded = crashed.store.loadRun('run-1');
      assert.equal(loaded.warnings.length, 1);
      assert.match(loaded.warnings[0]!, /ignored a torn last line .* saved to events\.jsonl\.torn/);
      assert.equal(loaded.state.lastSeq, lastSeq);
      const next = crashed.store.append('run-1', call('a'));
      assert.equal(next.seq, lastSeq + 1);
      const reread = EventLog.read(logOf('run-1', image));
      assert.deepEqual(reread.warnings, []);
      assert.deepEqual(reread.events.at(-1), next);
    } finally {
      closeStoresUnder(image);
      fs.rmSync(image, { recursive: true, force: true });
    }
  });

  it('backs up a corrupt state.json, rebuilds the index from the logs, and the rebuilt snapshot is used', () => {
    let { store } = openStore();
    busyRun(store, 'run-1');
    store.createRun('run-2', created('Second goal'));
    store.append('run-2', { type: 'run_finished', status: 'cancelled', summary: 'stopped' });
    closeStore(store);
    fs.writeFileSync(path.join(repo, '.taskloom', 'state.json'), '{"schemaVersion":1,"runs":{"run-1":');

    let openWarnings: string[];
    ({ store, openWarnings } = openStore());
    assert.equal(openWarnings.length, 1);
    assert.match(openWarnings[0]!, /^state\.json was not valid JSON .*moved to state\.json\.corrupt-.* rebuilt from the event logs$/);
    assert.equal(fs.readdirSync(path.join(repo, '.taskloom')).filter((n) => n.startsWith('state.json.corrupt-')).length, 1);
    assert.deepEqual(
      store.listRuns().map((r) => [r.runId, r.status, r.goal]),
      [
        ['run-2', 'cancelled', 'Second goal'],
        ['run-1', 'running', 'Add rate limiting'],
      ],
    );
    assert.equal(store.lastRunId(), 'run-2');
    const db = readDb();
    assert.equal(db.runs['run-1'].snapshot.seq, foldLog('run-1').lastSeq, 'the rebuilt index holds a snapshot');
    closeStore(store);

    // Proof the snapshot is what loading uses: damage a line it covers, which only a full replay would read
    // (the same number of bytes, so the offset the snapshot records still fits the log).
    const lines = fs.readFileSync(logOf('run-1'), 'utf8').split('\n');
    lines[2] = lines[2]!.replace(/"type":"(\w+)"/, '"type":!$1!');
    fs.writeFileSync(logOf('run-1'), lines.join('\n'));
    ({ store } = openStore());
    const loaded = store.loadRun('run-1');
    assert.deepEqual(loaded.warnings, []);
    assert.equal(loaded.state.lastSeq, db.runs['run-1'].snapshot.seq);
  });

  it('discards a snapshot that is ahead of the log and rebuilds the run from the whole log', () => {
    let { store } = openStore();
    busyRun(store);
    closeStore(store);
    const lastSeq = foldLog('run-1').lastSeq;
    const db = readDb();
    db.runs['run-1'].snapshot.seq = 999;
    db.runs['run-1'].snapshot.state.lastSeq = 999;
    writeDb(db);
    ({ store } = openStore());
    const loaded = store.loadRun('run-1');
    assert.equal(loaded.warnings.length, 1);
    assert.match(loaded.warnings[0]!, new RegExp(`discarded its snapshot in state\\.json \\(it covers seq 999 but the log ends at seq ${lastSeq}\\)`));
    assert.deepEqual(loaded.state, foldLog('run-1'));
    closeStore(store);
    assert.equal(readDb().runs['run-1'].snapshot.seq, lastSeq, 'a good snapshot replaces it');

    // An index entry that is ahead as well is caught when the store opens.
    db.runs['run-1'].lastSeq = 999;
    writeDb(db);
    let openWarnings: string[];
    ({ store, openWarnings } = openStore());
    assert.match(openWarnings[0]!, /discarded its snapshot .*it covers seq 999/);
    assert.equal(store.listRuns()[0]!.lastSeq, lastSeq, 'the index entry is corrected');
    assert.deepEqual(store.loadRun('run-1').warnings, []);
  });

  it('discards a snapshot whose state is not shaped like one, naming the field, and rebuilds the run from the whole log', () => {
    let { store } = openStore();
    busyRun(store);
    closeStore(store);
    const damages: Array<[(state: any) => void, RegExp]> = [
      [(state) => (state.tasks.a = 'GREEN'), /tasks\.a: Invalid input: expected object, received string/],
      [(state) => (state.taskOrder = 'a,b'), /taskOrder: Invalid input: expected array, received string/],
      [(state) => delete state.tasks.b, /task b is in taskOrder but not in tasks/],
    ];
    for (const [damage, named] of damages) {
      const db = readDb();
      damage(db.runs['run-1'].snapshot.state);
      writeDb(db);
      ({ store } = openStore());
      const loaded = store.loadRun('run-1');
      assert.match(loaded.warnings[0] ?? '', /discarded its snapshot in state\.json \(its state is not well formed/);
      assert.match(loaded.warnings[0]!, named);
      assert.deepEqual(loaded.state, foldLog('run-1'));
      closeStore(store);
    }
  });

  it('discards a snapshot that the rest of the log does not apply to', () => {
    let { store } = openStore();
    store.createRun('run-1', created());
    store.flush();
    const db = readDb();
    closeStore(store);
    ({ store } = openStore());
    move(store, 'run-1', 'a', 'BUILD_STARTED', 'BUILD_FINISHED');
    closeStore(store);
    // The old snapshot (at seq 1) claims task a is already GREEN: BUILD_STARTED cannot follow.
    db.runs['run-1'].snapshot.state.tasks.a.state = 'GREEN';
    db.runs['run-1'].lastSeq = 3;
    writeDb(db);
    ({ store } = openStore());
    const loaded = store.loadRun('run-1');
    assert.match(loaded.warnings[0]!, /discarded its snapshot .*the events after it do not apply to it: Illegal task transition/);
    assert.deepEqual(loaded.state, foldLog('run-1'));
    assert.equal(loaded.state.tasks.a!.state, 'GATING');
  });

  it('refuses an event the projection rejects without writing it, and carries on with the right seq', () => {
    const { store } = openStore();
    busyRun(store);
    const before = fs.readFileSync(logOf('run-1'), 'utf8');
    const lastSeq = store.state('run-1').lastSeq;
    assert.throws(
      () => store.append('run-1', { type: 'task_transition', taskId: 'a', event: 'BUILD_STARTED', from: 'GREEN', to: 'BUILDING', reason: 'bug' }),
      /Illegal task transition/,
    );
    assert.throws(() => store.append('run-1', call('no-such-task')), /unknown task/);
    assert.equal(fs.readFileSync(logOf('run-1'), 'utf8'), before, 'nothing reached the log');
    assert.equal(store.state('run-1').usage.calls, 1, 'the half-applied event left no trace in the live state');
    assert.equal(store.append('run-1', call('a')).seq, lastSeq + 1);
    assert.deepEqual(store.state('run-1'), foldLog('run-1'));
  });

  it(`writes a snapshot once the log has grown by ${SNAPSHOT_MIN_BYTES} bytes, just after the append that made it due, and at once at pause and finish`, async () => {
    const { store } = openStore();
    store.createRun('run-1', created());
    const first = readDb().runs['run-1'].snapshot;
    assert.deepEqual([first.seq, first.logBytes], [1, logSize('run-1')]);
    // state.json is far smaller than twice SNAPSHOT_MIN_BYTES here, so the minimum is the bar.
    while (logSize('run-1') - first.logBytes < SNAPSHOT_MIN_BYTES) store.append('run-1', call(null));
    const due = store.state('run-1').lastSeq;
    assert.equal(readDb().runs['run-1'].snapshot.seq, 1, 'not written inside the append');
    await tick();
    const second = readDb().runs['run-1'].snapshot;
    assert.deepEqual([second.seq, second.logBytes], [due, logSize('run-1')]);
    assert.deepEqual(second.state, plain(foldLog('run-1')));
    assert.equal(readDb().runs['run-1'].lastSeq, due);

    store.append('run-1', call(null));
    await tick();
    assert.equal(readDb().runs['run-1'].snapshot.seq, due, 'not due again one event later');
    store.append('run-1', { type: 'run_paused', reason: 'quota' });
    assert.equal(readDb().runs['run-1'].snapshot.seq, due + 2, 'a pause is snapshotted at once');
    assert.equal(readDb().runs['run-1'].status, 'paused');
    store.append('run-1', { type: 'run_resumed', reason: 'later' });
    store.append('run-1', { type: 'run_finished', status: 'completed', summary: 'done' });
    assert.deepEqual(
      [readDb().runs['run-1'].snapshot.seq, readDb().runs['run-1'].snapshot.logBytes],
      [due + 4, logSize('run-1')],
    );
    assert.deepEqual(readDb().runs['run-1'].snapshot.state, plain(foldLog('run-1')));
  });

  it(`spaces snapshots by ${SNAPSHOT_LOG_GROWTH} of state.json's size, so their cost per appended byte does not grow with the run`, async () => {
    const { store } = openStore();
    store.createRun('run-1', created());
    // Warnings stay in the state: state.json grows about as fast as the log.
    const warning = (i: number): RunEventBody => ({ type: 'warning', message: `${i} ${'w'.repeat(1000)}` });
    const writes: Array<{ dbBytes: number; logBytes: number }> = [];
    const db = path.join(repo, '.taskloom', 'state.json');
    let dbIno = fs.statSync(db).ino;
    for (let i = 0; i < 2500; i += 1) {
      store.append('run-1', warning(i));
      await tick();
      const ino = fs.statSync(db).ino;
      if (ino === dbIno) continue;
      dbIno = ino;
      writes.push({ dbBytes: fs.statSync(db).size, logBytes: readDb().runs['run-1'].snapshot.logBytes });
    }
    assert.ok(writes.length >= 3 && writes.length <= 8, `${writes.length} writes of state.json`);
    for (let i = 1; i < writes.length; i += 1) {
      const grown = writes[i]!.logBytes - writes[i - 1]!.logBytes;
      assert.ok(grown >= Math.max(SNAPSHOT_MIN_BYTES, SNAPSHOT_LOG_GROWTH * writes[i - 1]!.dbBytes), `write ${i}: the log grew ${grown} bytes, state.json was ${writes[i - 1]!.dbBytes}`);
    }
    assert.ok(writes.at(-1)!.dbBytes > 4 * SNAPSHOT_MIN_BYTES, 'state.json became the bar');
  });

  it('loads a run from its snapshot by reading only the log after it, and writes nothing when nothing is behind', () => {
    const { store } = openStore();
    busyRun(store);
    for (let i = 0; i < 3000; i += 1) store.append('run-1', call('a'));
    closeStore(store);
    const snapshot = readDb().runs['run-1'].snapshot;
    assert.equal(snapshot.logBytes, logSize('run-1'));
    const files = ['state.json', 'runs/run-1/run.json', 'runs/run-1/DECISIONS.md'].map((f) => path.join(repo, '.taskloom', f));
    const before = files.map(fileIdentity);

    const watch = watchLog('run-1', () => {
      const opened = openStore();
      const loaded = opened.store.loadRun('run-1');
      closeStore(opened.store);
      return loaded;
    });
    assert.deepEqual(watch.result.warnings, []);
    assert.deepEqual(plain(watch.result.state), plain(foldLog('run-1')));
    assert.ok(watch.parsedEvents <= 2, `${watch.parsedEvents} event lines parsed`);
    assert.ok(watch.bytesRead < 32 * 1024, `${watch.bytesRead} of ${logSize('run-1')} log bytes read`);
    assert.deepEqual(files.map(fileIdentity), before, 'state.json, run.json and DECISIONS.md untouched');
  });

  it('after a crash between snapshots, loads the run once (the tail only) and writes state.json and the derived files later, not in open or loadRun', async () => {
    const { store } = openStore();
    busyRun(store);
    for (let i = 0; i < 3000; i += 1) store.append('run-1', call('a'));
    store.flush();
    const snapshot = readDb().runs['run-1'].snapshot;
    for (let i = 0; i < 7; i += 1) store.append('run-1', call('a'));
    const image = crashImage();
    try {
      const db = path.join(image, '.taskloom', 'state.json');
      const dbBefore = fileIdentity(db);
      const watch = watchLog('run-1', () => {
        const crashed = openStore(image);
        return { crashed, loaded: crashed.store.loadRun('run-1') };
      }, image);
      const { crashed, loaded } = watch.result;
      assert.deepEqual([crashed.openWarnings, loaded.warnings], [[], []]);
      assert.deepEqual(plain(loaded.state), plain(foldLog('run-1', image)));
      assert.equal(crashed.store.listRuns()[0]!.lastSeq, snapshot.seq + 7, 'the index caught up in memory');
      // 7 events after the snapshot, each parsed once, plus the last line checked by the index and by the repair.
      assert.ok(watch.parsedEvents <= 7 + 2, `${watch.parsedEvents} event lines parsed`);
      assert.ok(watch.bytesRead < 48 * 1024, `${watch.bytesRead} of ${logSize('run-1', image)} log bytes read`);
      assert.deepEqual(fileIdentity(db), dbBefore, 'state.json is not rewritten by open or loadRun');

      await new Promise((resolve) => setTimeout(resolve, 20));
      closeStore(crashed.store);
      const after = readDb(image).runs['run-1'];
      assert.deepEqual([after.lastSeq, after.snapshot.seq, after.snapshot.logBytes], [snapshot.seq + 7, snapshot.seq + 7, logSize('run-1', image)]);
      const runJson = JSON.parse(fs.readFileSync(path.join(image, '.taskloom', 'runs', 'run-1', 'run.json'), 'utf8'));
      assert.equal(runJson.lastSeq, snapshot.seq + 7, 'the derived files caught up');
    } finally {
      closeStoresUnder(image);
      fs.rmSync(image, { recursive: true, force: true });
    }
  });

  it('without state.json, reads each log once to rebuild the index and load the run', () => {
    let { store } = openStore();
    busyRun(store);
    for (let i = 0; i < 300; i += 1) store.append('run-1', call('a'));
    closeStore(store);
    fs.rmSync(path.join(repo, '.taskloom', 'state.json'));
    const events = foldLog('run-1').lastSeq;
    const watch = watchLog('run-1', () => {
      const opened = openStore();
      store = opened.store;
      return opened.store.loadRun('run-1');
    });
    assert.deepEqual(watch.result.warnings, []);
    assert.deepEqual(plain(watch.result.state), plain(foldLog('run-1')));
    assert.ok(watch.parsedEvents <= events + 2, `${watch.parsedEvents} event lines parsed for ${events} events`);
    assert.ok(watch.bytesRead <= logSize('run-1') + 32 * 1024, `${watch.bytesRead} bytes read of a ${logSize('run-1')}-byte log`);
    closeStore(store);
    assert.equal(readDb().runs['run-1'].snapshot.logBytes, logSize('run-1'), 'the rebuilt index and snapshot are written on close');
  });

  it('uses a snapshot whose offset no longer fits the log (a hand edit) after a scan for its seq, with a warning, and replaces it', () => {
    let { store } = openStore();
    busyRun(store);
    closeStore(store);
    const lastSeq = foldLog('run-1').lastSeq;
    // Two bytes more in a line the snapshot covers: every later offset moves.
    const lines = fs.readFileSync(logOf('run-1'), 'utf8').split('\n');
    lines[1] = `${lines[1]}  `;
    fs.writeFileSync(logOf('run-1'), lines.join('\n'));

    ({ store } = openStore());
    const loaded = store.loadRun('run-1');
    assert.equal(loaded.warnings.length, 1);
    assert.match(loaded.warnings[0]!, new RegExp(`^Run run-1: the snapshot in state\\.json says seq ${lastSeq} ends at byte \\d+ of the log, but .*; the whole log was scanned for that seq instead$`));
    assert.deepEqual(plain(loaded.state), plain(foldLog('run-1')));
    closeStore(store);
    assert.equal(readDb().runs['run-1'].snapshot.logBytes, logSize('run-1'), 'the snapshot was replaced');
    ({ store } = openStore());
    assert.deepEqual(store.loadRun('run-1').warnings, []);
  });

  it('flush writes the derived files of a busy run now', () => {
    const { store } = openStore();
    store.createRun('run-1', created());
    store.append('run-1', call('a'));
    store.append('run-1', { type: 'plan_approved', by: 'human' });
    store.flush('run-1');
    const decisions = fs.readFileSync(path.join(repo, '.taskloom', 'runs', 'run-1', 'DECISIONS.md'), 'utf8');
    assert.match(decisions, /Plan approved by human/);
  });

  it('lists runs newest first and finds the last and the latest unfinished run', async () => {
    const { store } = openStore();
    assert.deepEqual(store.listRuns(), []);
    assert.equal(store.lastRunId(), undefined);
    assert.equal(store.latestUnfinishedRunId(), undefined);
    store.createRun('r-old', created('old'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    store.createRun('r-mid', created('mid'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    store.createRun('r-new', created('new'));
    store.append('r-new', { type: 'run_finished', status: 'completed', summary: 'done' });
    store.append('r-mid', { type: 'run_paused', reason: 'quota' });
    assert.deepEqual(
      store.listRuns().map((r) => [r.runId, r.status]),
      [
        ['r-new', 'completed'],
        ['r-mid', 'paused'],
        // Its plan was never approved: it waits for that, planning.
        ['r-old', 'planning'],
      ],
    );
    assert.equal(store.lastRunId(), 'r-new');
    assert.equal(store.latestUnfinishedRunId(), 'r-mid');
    assert.ok(!('snapshot' in store.listRuns()[0]!), 'entries do not carry snapshots');
  });

  it('refuses a second writer in the workspace, while a read-only store reads without writing anything', () => {
    const { store } = openStore();
    busyRun(store);
    assert.throws(() => openStore(), LockHeldError);

    const dbBefore = fs.readFileSync(path.join(repo, '.taskloom', 'state.json'), 'utf8');
    const reader = openStore(repo, { readOnly: true });
    assert.deepEqual(reader.store.listRuns(), store.listRuns());
    assert.deepEqual(plain(reader.store.loadRun('run-1').state), plain(store.state('run-1')));
    store.append('run-1', call('a'));
    assert.equal(reader.store.loadRun('run-1').state.lastSeq, store.state('run-1').lastSeq, 'a read-only load sees the writer’s progress');
    assert.throws(() => reader.store.append('run-1', call('a')), /read-only/);
    assert.throws(() => reader.store.createRun('run-2', created()), /read-only/);
    closeStore(reader.store);
    assert.equal(fs.readFileSync(path.join(repo, '.taskloom', 'state.json'), 'utf8'), dbBefore);
    assert.ok(fs.existsSync(path.join(repo, '.taskloom', 'lock')), 'the writer still holds its lock');

    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-empty-'));
    try {
      const empty = openStore(elsewhere, { readOnly: true });
      assert.deepEqual(empty.store.listRuns(), []);
      assert.equal(fs.existsSync(path.join(elsewhere, '.taskloom')), false, 'read-only creates nothing');
    } finally {
      closeStoresUnder(elsewhere);
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('recovers a run from a process killed mid-run: stale lock taken over, index caught up, state equal to the log', async () => {
    const script = path.join(repo, 'crash.ts');
    fs.writeFileSync(
      script,
      `import { RunStore } from ${JSON.stringify(STORE_MODULE)};
       const { store } = RunStore.open(${JSON.stringify(repo)}, { command: 'taskloom run' });
       store.createRun('run-1', ${JSON.stringify(created())});
       const call = ${JSON.stringify(call('a'))};
       store.append('run-1', { type: 'plan_approved', by: 'autopilot' });
       store.append('run-1', { type: 'task_transition', taskId: 'a', event: 'BUILD_STARTED', from: 'PENDING', to: 'BUILDING', reason: 'go' });
       for (let i = 0; i < 30; i++) store.append('run-1', call);
       process.kill(process.pid, 'SIGKILL');`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
    const [, signal] = await once(child, 'exit');
    assert.equal(signal, 'SIGKILL');
    assert.equal(readDb().runs['run-1'].lastSeq, 1, 'the index on disk only knows the creation');

    const { store, openWarnings } = openStore();
    assert.equal(openWarnings.length, 1);
    assert.match(openWarnings[0]!, new RegExp(`^Took over a stale lock from pid ${child.pid} \\("taskloom run"`));
    assert.deepEqual(
      store.listRuns().map((r) => [r.runId, r.lastSeq, r.status]),
      [['run-1', 33, 'running']],
    );
    assert.equal(store.latestUnfinishedRunId(), 'run-1');
    const loaded = store.loadRun('run-1');
    assert.deepEqual(loaded.warnings, []);
    assert.deepEqual(plain(loaded.state), plain(foldLog('run-1')));
    assert.equal(loaded.state.tasks.a!.state, 'BUILDING');
    assert.equal(loaded.state.usage.calls, 30);
  });

  it('appends without reading the log, so the cost does not grow with its size', () => {
    const { store } = openStore();
    busyRun(store);
    store.append('run-1', call('a'));
    const reads = { readSync: 0, readFileSync: 0 };
    const originals = { readSync: fs.readSync, readFileSync: fs.readFileSync };
    for (const name of ['readSync', 'readFileSync'] as const) {
      (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        reads[name] += 1;
        return (originals[name] as (...a: unknown[]) => unknown)(...args);
      };
    }
    try {
      for (let i = 0; i < 50; i += 1) store.append('run-1', call('a'));
    } finally {
      Object.assign(fs, originals);
    }
    assert.deepEqual(reads, { readSync: 0, readFileSync: 0 });
  });

  it('drops an index entry whose log is gone, and refuses unknown, duplicate or unsafe run ids', () => {
    let { store } = openStore();
    store.createRun('run-1', created());
    store.createRun('run-2', created());
    assert.throws(() => store.createRun('run-1', created()), /already exists/);
    assert.throws(() => store.createRun('../escape', created()), /Invalid run id/);
    assert.throws(() => store.loadRun('nope'), RunNotFoundError);
    assert.throws(() => store.append('nope', call(null)), RunNotFoundError);
    assert.throws(() => store.append('run-1', created()), /use createRun/);
    closeStore(store);

    fs.rmSync(path.join(repo, '.taskloom', 'runs', 'run-2'), { recursive: true });
    let openWarnings: string[];
    ({ store, openWarnings } = openStore());
    assert.match(openWarnings[0]!, /Run run-2 has no event log any more/);
    assert.deepEqual(
      store.listRuns().map((r) => r.runId),
      ['run-1'],
    );
    assert.equal(store.lastRunId(), 'run-1');
  });

  it('removes a run: its folder, its index entry and snapshot, for good', () => {
    let { store } = openStore();
    store.createRun('run-1', created('first'));
    store.createRun('run-2', created('second'));
    store.append('run-2', call('a'));
    store.removeRun('run-2');
    assert.equal(fs.existsSync(path.join(repo, '.taskloom', 'runs', 'run-2')), false);
    assert.deepEqual(store.listRuns().map((r) => r.runId), ['run-1']);
    assert.equal(store.lastRunId(), 'run-1');
    assert.throws(() => store.loadRun('run-2'), RunNotFoundError);
    assert.throws(() => store.removeRun('run-2'), RunNotFoundError);
    closeStore(store);

    let openWarnings: string[];
    ({ store, openWarnings } = openStore());
    assert.deepEqual(openWarnings, [], 'the index on disk agrees with the logs');
    assert.deepEqual(store.listRuns().map((r) => r.runId), ['run-1']);
    assert.doesNotMatch(fs.readFileSync(path.join(repo, '.taskloom', 'state.json'), 'utf8'), /run-2/);
  });
});
