import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { taskloomPaths } from '../src/engine/store/paths';
import { SNAPSHOT_EVERY } from '../src/engine/store/runStore';
import { CRASH_SNAPSHOT_LAG, stateJsonText, type BigRun } from './fixtures';
import type { Section } from './report';
import { median, mib, ms, ratio } from './stats';

/** Fresh processes per state.json situation; each one loads the run once. */
const LOAD_REPS = 2;
const FLOOR_REPS = 3;

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
  if (floors[0]!.lines !== events) throw new Error(`the log has ${floors[0]!.lines} lines, expected ${events}`);
  const parseFloor = medianBy(floors, 'parse');
  const readParse = medianBy(floors, 'readParse');

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
      `(\`RunStore.loadRun\`), each load in a fresh Node process (new heap, as the CLI meets it), median of ${LOAD_REPS}; ` +
      `state.json is put back before each load, since loading rewrites it. ` +
      `Baseline: \`JSON.parse\` of every line of the same bytes, already in memory, in a fresh process (the floor of any JSONL replay). ` +
      `The second table times the parts of a load (median of 3, one fresh process) to show where the time goes.`,
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
      `The final state is ${mib(parts.stateJsonBytes!)} as JSON (${parts.transitionCount!.toLocaleString('en-US')} transition records, ` +
        `${parts.decisionCount!.toLocaleString('en-US')} decisions): replaying every event costs only ${ms(parts.fold!)}, less than cloning the state once ` +
        `(${ms(parts.clone!)}) or parsing the snapshot (${ms(parts.stateParse!)}). A snapshot every ${SNAPSHOT_EVERY} events therefore does not make resume faster at this size.`,
    ],
  };
}
