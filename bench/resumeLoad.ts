import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { taskloomPaths } from '../src/engine/store/paths';
import { CRASH_SNAPSHOT_LAG, stateJsonText, type BigRun } from './fixtures';
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

  const variants: Variant[] = [
    { name: 'full replay (index entry, no snapshot)', stateJson: stateJsonText(finalState) },
    { name: 'no state.json (index rebuilt from the log)', stateJson: null },
    { name: `crash between snapshots (snapshot ${CRASH_SNAPSHOT_LAG} events before the end)`, stateJson: stateJsonText(big.crashSnapshot, big.crashSnapshot) },
    { name: 'clean stop (snapshot at the last event)', stateJson: stateJsonText(finalState, finalState) },
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
      all: runs.map((r) => r.total!),
    };
  });
  const parts = child(['parts', big.eventsFile, String(events - CRASH_SNAPSHOT_LAG)]);

  const byName = (prefix: string) => rows.find((r) => r.name.startsWith(prefix))!;
  const full = byName('full replay');
  const crash = byName('crash');
  const clean = byName('clean');
  const slowest = rows.reduce((a, b) => (b.total > a.total ? b : a));
  const rowOf = (name: string, value: number): string[] => [name, ms(value), ratio(value / parseFloor)];
  return {
    title: '2. Resume load time for 100,000 events',
    method:
      `The ${events.toLocaleString('en-US')}-event log of section 1 (${mib(bytes)}) loaded as \`taskloom resume\` loads it: ` +
      `\`TaskloomEngine.open\` (git checks of the repository, \`RunStore.open\`: state.json and the index) then \`engine.session(runId)\` ` +
      `(\`RunStore.loadRun\`), each load in a fresh Node process (new heap, as the CLI meets it), median of ${LOAD_REPS} processes; ` +
      `state.json is put back before each load, since loading rewrites it. ` +
      `Baseline: \`JSON.parse\` of every line of the same bytes, already in memory, in a fresh process (the floor of any JSONL replay; median of ${FLOOR_REPS} processes). ` +
      `The second table times the parts of a load in one more fresh process (best of ${2}) to show where the time goes.`,
    tables: [
      {
        headers: ['load', 'total', '× floor', 'engine.open', 'of which git', 'session (loadRun)', 'close after', `totals of the ${LOAD_REPS} loads`],
        numeric: [1, 2, 3, 4, 5, 6],
        rows: [
          [...rowOf('baseline: JSON.parse of every line (floor)', parseFloor), '', '', '', '', ''],
          [...rowOf('read the file + JSON.parse of every line', readParse), '', '', '', '', ''],
          ...rows.map((r) => [...rowOf(r.name, r.total), ms(r.open), ms(r.git), ms(r.session), ms(r.close), r.all.map((v) => v.toFixed(0)).join(', ')]),
        ],
      },
      {
        headers: ['part of a load (100k events)', 'time', '× floor'],
        numeric: [1, 2],
        rows: [
          rowOf('EventLog.read of the whole log (read, split, parse, validate)', parts.logRead!),
          rowOf(`EventLog.read after a snapshot (reads and splits every line, parses the last ${CRASH_SNAPSHOT_LAG})`, parts.tailRead!),
          rowOf('foldEvents over all 100k events (the projection)', parts.fold!),
          rowOf('structuredClone of the final state (each snapshot taken or restored)', parts.clone!),
          rowOf(`JSON.parse of state.json holding that snapshot (${mib(parts.stateJsonBytes!)})`, parts.stateParse!),
          rowOf('JSON.stringify of that state.json (each state.json write)', parts.stateStringify!),
          rowOf(`renderDecisionsMarkdown (${parts.decisionCount!.toLocaleString('en-US')} decisions → ${mib(parts.decisionsBytes!)})`, parts.decisions!),
          rowOf('renderRunJson + JSON.stringify (run.json)', parts.runJson!),
        ],
      },
    ],
    notes: [
      slowest.total < 1000
        ? `Every load of 100,000 events is under a second (slowest: ${slowest.name}, ${ms(slowest.total)}).`
        : `NOT under a second: loading 100,000 events takes ${ms(full.total)} by full replay (${ratio(full.total / parseFloor)} the floor), ` +
          `${ms(crash.total)} after a crash between snapshots and ${ms(clean.total)} after a clean stop; the slowest case is "${slowest.name}" at ${ms(slowest.total)}.`,
      `Reading and replaying the whole log (EventLog.read + foldEvents) takes ${ms(parts.logRead! + parts.fold!)} of the ${ms(full.total)} full-replay load; ` +
        `the rest is bookkeeping done before resume can start: a structuredClone of the state for the snapshot, a rewrite of state.json ` +
        `(${mib(parts.stateJsonBytes!)}) and a render of DECISIONS.md (${mib(parts.decisionsBytes!)}), plus the garbage collection all of it causes.`,
      `A snapshot does not make the load faster: ${ms(clean.total)} after a clean stop and ${ms(crash.total)} after a crash, vs ${ms(full.total)} by full replay. ` +
        `The state grows with the log (${parts.transitionCount!.toLocaleString('en-US')} transition records, ${parts.decisionCount!.toLocaleString('en-US')} decisions), ` +
        `so restoring it (parse ${ms(parts.stateParse!)}, clone ${ms(parts.clone!)}) costs more than replaying every event (${ms(parts.fold!)}); ` +
        `the log is still read and split to its end (${ms(parts.tailRead!)}); and after a crash the run is loaded, re-snapshotted and written twice ` +
        `(once while the store brings its index up to date in engine.open, once in loadRun).`,
    ],
  };
}
