// Run by resumeLoad.ts in a fresh process, so each load is timed as `taskloom resume` meets it:
// a new heap, nothing warmed up. Prints one JSON line with the timings (ms) on stdout.
//   resumeChild.ts floor <eventsFile>       JSON.parse of every line, the lines already in memory
//   resumeChild.ts readparse <eventsFile>   the same, reading and splitting the file included
//   resumeChild.ts load <root> <runId>
//   resumeChild.ts parts <eventsFile> <afterSeq> <logBytes of afterSeq> <state.json with a snapshot at the end>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timeSync } from './stats';

/** Parts are timed twice in the same process; the better time is kept. */
const PART_REPS = 2;

function bestOf(work: () => void): number {
  return Math.min(...Array.from({ length: PART_REPS }, () => timeSync(work)));
}

async function main(): Promise<Record<string, number>> {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === 'floor') {
    const lines = fs.readFileSync(a!, 'utf8').split('\n').filter((l) => l.length > 0);
    const parse = timeSync(() => {
      for (const line of lines) JSON.parse(line);
    });
    return { parse, lines: lines.length };
  }
  if (mode === 'readparse') {
    let lines = 0;
    const readParse = timeSync(() => {
      for (const line of fs.readFileSync(a!, 'utf8').split('\n')) {
        if (!line) continue;
        JSON.parse(line);
        lines++;
      }
    });
    return { readParse, lines };
  }
  // Loaded only here, so the floor processes start as light as possible.
  const { TaskloomEngine } = await import('../src/engine/run/engine');
  const { GitTimer } = await import('../test/helpers/gitTimer');
  const { foldEvents } = await import('../src/engine/domain/projection');
  const { renderDecisionsMarkdown, renderRunJson } = await import('../src/engine/store/derivedFiles');
  const { EventLog } = await import('../src/engine/store/eventLog');
  const { loadRunState } = await import('../src/engine/store/runLoader');
  const { StateDb, emptyStateData } = await import('../src/engine/store/stateDb');
  const { runPaths, taskloomPaths } = await import('../src/engine/store/paths');
  if (mode === 'load') {
    const root = a!;
    const runId = b!;
    // What the load rewrites (an atomic rewrite changes the inode), before close writes what is left.
    const watched = [taskloomPaths(root).stateDb, runPaths(taskloomPaths(root).runsDir, runId).runJson, runPaths(taskloomPaths(root).runsDir, runId).decisions];
    const identity = (): string => watched.map((f) => (fs.existsSync(f) ? `${fs.statSync(f).ino}:${fs.statSync(f).mtimeMs}` : '-')).join(',');
    const before = identity();
    const git = new GitTimer();
    const t0 = performance.now();
    const engine = await TaskloomEngine.open(root, { command: 'bench resume', gitObserver: git });
    const t1 = performance.now();
    const gitMs = git.busyMs;
    const lastSeq = engine.session(runId).state.lastSeq;
    const t2 = performance.now();
    const wroteDuringLoad = identity() === before ? 0 : 1;
    engine.close();
    const t3 = performance.now();
    // Without a state.json the store says it rebuilt the index: that is the situation measured, not a problem.
    const unexpected = engine.warnings.filter((w) => !/state\.json was missing; the index was rebuilt/.test(w));
    if (unexpected.length > 0) throw new Error(`unexpected warnings: ${unexpected.join('; ')}`);
    return { open: t1 - t0, session: t2 - t1, total: t2 - t0, git: gitMs, close: t3 - t2, lastSeq, wroteDuringLoad };
  }
  if (mode === 'parts') {
    // parts <eventsFile> <afterSeq> <afterSeq's logBytes> <state.json with a snapshot at the end>
    const file = a!;
    const afterSeq = Number(b);
    const [fromOffset, stateJsonFile] = [Number(process.argv[5]), process.argv[6]!];
    let read: ReturnType<typeof EventLog.read> | undefined;
    const logRead = bestOf(() => {
      read = EventLog.read(file);
    });
    const state = foldEvents(read!.events)!;
    const fold = bestOf(() => {
      foldEvents(read!.events);
    });
    read = undefined;
    const replay = bestOf(() => {
      loadRunState(file, state.runId);
    });
    const tailRead = bestOf(() => {
      EventLog.read(file, { afterSeq, fromOffset });
    });
    const tailScan = bestOf(() => {
      EventLog.read(file, { afterSeq });
    });
    const stateOpen = bestOf(() => {
      StateDb.open(stateJsonFile, emptyStateData, { readOnly: true });
    });
    const clone = bestOf(() => {
      structuredClone(state);
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskloom-bench-parts-'));
    const { db } = StateDb.open(path.join(dir, 'state.json'), emptyStateData);
    db.putRun({ runId: state.runId, goal: state.goal, createdAt: state.createdAt, updatedAt: state.updatedAt, status: state.status, lastSeq: state.lastSeq });
    const snapshot = bestOf(() => {
      db.setSnapshot(state.runId, state, fromOffset);
    });
    const stateWrite = bestOf(() => {
      db.write();
    });
    fs.rmSync(dir, { recursive: true, force: true });
    const decisionsFirst = timeSync(() => {
      renderDecisionsMarkdown(state);
    });
    const decisions = bestOf(() => {
      renderDecisionsMarkdown(state);
    });
    const runJson = bestOf(() => {
      JSON.stringify(renderRunJson(state), null, 2);
    });
    return {
      logRead,
      fold,
      replay,
      tailRead,
      tailScan,
      stateOpen,
      clone,
      snapshot,
      stateWrite,
      decisionsFirst,
      decisions,
      runJson,
      stateJsonBytes: fs.statSync(stateJsonFile).size,
      decisionsBytes: Buffer.byteLength(renderDecisionsMarkdown(state)),
      decisionCount: state.decisions.length,
      transitionCount: Object.values(state.tasks).reduce((sum, t) => sum + t.transitions.length, 0),
    };
  }
  throw new Error(`unknown mode ${String(mode)}`);
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
