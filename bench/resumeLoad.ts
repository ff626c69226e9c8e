import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { taskloomPaths } from '../src/engine/store/paths';
import { SNAPSHOT_LOG_GROWTH } from '../src/engine/store/runStore';
import { CRASH_SNAPSHOT_LAG, legacyStateJsonText, stateBeforeTail, stateJsonText, type BigRun } from './fixtures';
import type { Section } from './report';
import { median, mib, ms, ratio } from './stats';

/** Fresh processes per state.json situation; each one loads the run once. */
const LOAD_REPS = 3;
const FLOOR_REPS = 2;

interface Variant {
  name: string;
  /** state.json before the load, or null for none. */
  stateJson: string | null;
}

type Timings = Record<string, number>;

function child(args: string[]): Timings {
  const script = path.join(__dirname, 'resumeChild.ts');
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`resumeChild ${args[0]} failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Timings;
}

const medianBy = (runs: Timings[], key: string): number => median(runs.map((r) => r[key]!));

/**
 * Section 2. Loads the 100k-event run the way `taskloom resume` does — TaskloomEngine.open, then
 * engine.session(runId) — each time in a fresh process (a new heap, as the CLI meets it), with the
 * state.json situations a resume can find. Baseline: JSON.parse of every line of the same bytes,
 * also in a fresh process. A last fresh process times the parts of a load separately.
 */
export function benchResumeLoad(big: BigRun): Section {
  const finalState = big.stream.state!;
  const events = finalState.lastSeq;
  const stateDb = taskloomPaths(big.root).stateDb;
  const bytes = fs.statSync(big.eventsFile).size;

  const floors = Array.from({ length: FLOOR_REPS }, () => child(['floor', big.eventsFile]));
  const readParses = Array.from({ length: FLOOR_REPS }, () => child(['readparse', big.eventsFile]));
  for (const run of [...floors, ...readParses]) {
    if (run.lines !== events) throw new Error(`the log has ${run.lines} lines, expected ${events}`);
  }
  const parseFloor = medianBy(floors, 'parse');
  const readParse = medianBy(readParses, 'readParse');

  const cleanJson = stateJsonText(finalState, finalState, bytes);
  // The longest tail a crash can leave: the log grew by SNAPSHOT_LOG_GROWTH of state.json's size since the last snapshot.
  const worst = stateBeforeTail(big.eventsFile, Math.floor(SNAPSHOT_LOG_GROWTH * cleanJson.length));
  const worstJson = stateJsonText(worst.state, worst.state, worst.logBytes);
  const worstTail = events - worst.state.lastSeq;
  const variants: Variant[] = [
    { name: 'full replay (index entry, no snapshot)', stateJson: stateJsonText(finalState) },
    { name: 'no state.json (index rebuilt from the log)', stateJson: null },
    { name: `crash between snapshots (snapshot ${CRASH_SNAPSHOT_LAG} events before the end)`, stateJson: stateJsonText(big.crashSnapshot, big.crashSnapshot, big.crashLogBytes) },
    {
      name: `crash just before a snapshot was due (snapshot ${worstTail.toLocaleString('en-US')} events, ${mib(bytes - worst.logBytes)}, before the end)`,
      stateJson: worstJson,
    },
    { name: 'clean stop (snapshot at the last event)', stateJson: cleanJson },
    { name: 'clean stop, state.json from before snapshots recorded logBytes', stateJson: legacyStateJsonText(finalState, finalState) },
  ];
  const rows = variants.map((variant) => {
    const runs: Timings[] = [];
    for (let rep = 0; rep < LOAD_REPS; rep++) {
      fs.rmSync(stateDb, { force: true });
      if (variant.stateJson !== null) fs.writeFileSync(stateDb, variant.stateJson);
      const run = child(['load', big.root, big.runId]);
      if (run.lastSeq !== events) throw new Error(`${variant.name}: loaded seq ${run.lastSeq}, expected ${events}`);
      runs.push(run);
    }
    return {
      name: variant.name,
      total: medianBy(runs, 'total'),
      open: medianBy(runs, 'open'),
      git: medianBy(runs, 'git'),
      session: medianBy(runs, 'session'),
      close: medianBy(runs, 'close'),
      wrote: runs.filter((r) => r.wroteDuringLoad).length,
      all: runs.map((r) => r.total!),
    };
  });
  fs.writeFileSync(stateDb, cleanJson);
  const parts = child(['parts', big.eventsFile, String(events - CRASH_SNAPSHOT_LAG), String(big.crashLogBytes), stateDb]);

  const byName = (prefix: string) => rows.find((r) => r.name.startsWith(prefix))!;
  const full = byName('full replay');
  const crash = byName('crash between');
  const worstRow = byName('crash just before');
  const clean = byName('clean stop (');
  const legacy = byName('clean stop,');
  // A state.json written before snapshots recorded logBytes is met once: the next write records it.
  const current = rows.filter((r) => r !== legacy);
  const slowest = current.reduce((a, b) => (b.total > a.total ? b : a));
  const rowOf = (name: string, value: number): string[] => [name, ms(value), ratio(value / parseFloor)];
  const wrote = rows.filter((r) => r.wrote > 0).map((r) => `"${r.name}" (${r.wrote} of ${LOAD_REPS})`);
  return {
    title: '2. Resume load time for 100,000 events',
    method:
      `The ${events.toLocaleString('en-US')}-event log of section 1 (${mib(bytes)}) loaded as \`taskloom resume\` loads it: ` +
      `\`TaskloomEngine.open\` (git checks of the repository, \`RunStore.open\`: state.json and the index) then \`engine.session(runId)\` ` +
      `(\`RunStore.loadRun\`), each load in a fresh Node process (new heap, as the CLI meets it), median of ${LOAD_REPS} processes; ` +
      `state.json is put back before each load, since closing the store afterwards may rewrite it. "Files rewritten by the load" counts the loads ` +
      `that rewrote state.json, run.json or DECISIONS.md before \`close\` (what is behind the log is written later, on close at the latest: the "close after" column). ` +
      `Baseline: \`JSON.parse\` of every line of the same bytes, already in memory, in a fresh process (the floor of any JSONL replay; median of ${FLOOR_REPS} processes). ` +
      `The second table times the parts of a load in one more fresh process (best of ${2}) to show where the time goes.`,
    tables: [
      {
        headers: ['load', 'total', '× floor', 'engine.open', 'of which git', 'session (loadRun)', 'files rewritten by the load', 'close after', `totals of the ${LOAD_REPS} loads`],
        numeric: [1, 2, 3, 4, 5, 6, 7],
        rows: [
          [...rowOf('baseline: JSON.parse of every line (floor)', parseFloor), '', '', '', '', '', ''],
          [...rowOf('read the file + JSON.parse of every line', readParse), '', '', '', '', '', ''],
          ...rows.map((r) => [
            ...rowOf(r.name, r.total),
            ms(r.open),
            ms(r.git),
            ms(r.session),
            `${r.wrote} of ${LOAD_REPS}`,
            ms(r.close),
            r.all.map((v) => v.toFixed(0)).join(', '),
          ]),
        ],
      },
      {
        headers: ['part of a load (100k events)', 'time', '× floor'],
        numeric: [1, 2],
        rows: [
          rowOf('EventLog.read of the whole log (read, split, parse, validate)', parts.logRead!),
          rowOf('foldEvents over all 100k events (the projection)', parts.fold!),
          rowOf('loadRunState without a snapshot (the whole log, projected as it is read)', parts.replay!),
          rowOf(`EventLog.read from a snapshot's logBytes (reads and parses only the last ${CRASH_SNAPSHOT_LAG} events)`, parts.tailRead!),
          rowOf(`EventLog.read after a snapshot without logBytes (scans every line for its seq, parses the last ${CRASH_SNAPSHOT_LAG})`, parts.tailScan!),
          rowOf(`StateDb.open of state.json holding the final snapshot (${mib(parts.stateJsonBytes!)}: read, decode, parse, check)`, parts.stateOpen!),
          rowOf('taking a snapshot: StateDb.setSnapshot of the final state (JSON.stringify, non-ASCII escaped)', parts.snapshot!),
          rowOf('writing that state.json (StateDb.write; the snapshot is not serialised again)', parts.stateWrite!),
          rowOf('structuredClone of the final state (what restoring or taking a snapshot cost before; no longer done)', parts.clone!),
          rowOf(`renderDecisionsMarkdown, first render (${parts.decisionCount!.toLocaleString('en-US')} decisions → ${mib(parts.decisionsBytes!)})`, parts.decisionsFirst!),
          rowOf('renderDecisionsMarkdown again (each decision is rendered once and kept)', parts.decisions!),
          rowOf('renderRunJson + JSON.stringify (run.json)', parts.runJson!),
        ],
      },
    ],
    notes: [
      slowest.total < 1000
        ? `Every load of 100,000 events from a state.json as this version writes it (or none) is under a second; the slowest is "${slowest.name}" at ${ms(slowest.total)}. ` +
          `${ms(clean.total)} after a clean stop, ${ms(crash.total)} after a crash ${CRASH_SNAPSHOT_LAG} events after a snapshot, ${ms(worstRow.total)} after a crash just before ` +
          `the next snapshot was due, ${ms(full.total)} by full replay.`
        : `NOT under a second: the slowest load of 100,000 events is "${slowest.name}" at ${ms(slowest.total)} ` +
          `(${ms(clean.total)} after a clean stop, ${ms(crash.total)} after a crash, ${ms(full.total)} by full replay).`,
      `A snapshot reads no more of the log than the events after it (${ms(parts.tailRead!)} for the last ${CRASH_SNAPSHOT_LAG}, vs ${ms(parts.logRead!)} for the whole log), ` +
        `and its state is used as parsed, not copied. What is left of a load from a snapshot is mostly reading state.json into a fresh process's heap ` +
        `(${ms(parts.stateOpen!)} for ${mib(parts.stateJsonBytes!)} in a warm process; more in a fresh one, which grows its heap as it parses), and git's checks in engine.open. ` +
        `A state.json from before snapshots recorded logBytes still works, once: the log is scanned for the snapshot's seq (${ms(legacy.total)}), and the next write records it.`,
      wrote.length === 0
        ? `No load rewrote state.json, run.json or DECISIONS.md. Where they are behind the log (after a crash, or without a usable snapshot) they are written after the load, ` +
          `on close at the latest (close after: ${ms(crash.close)} after a crash, ${ms(full.close)} after a full replay — a new snapshot of the ${mib(parts.stateJsonBytes!)} state ` +
          `and a render of DECISIONS.md), never twice, and not before resume can start; after a clean stop nothing is written at all (${ms(clean.close)}).`
        : `Loads that rewrote a file before close: ${wrote.join(', ')}.`,
    ],
  };
}
