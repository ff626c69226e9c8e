import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent, RunEventBody } from '../src/engine/domain/events';
import { EventLog } from '../src/engine/store/eventLog';
import { runPaths, taskloomPaths } from '../src/engine/store/paths';
import { DERIVED_FILES_INTERVAL_MS, DERIVED_FILES_MAX_TIME_SHARE, RunStore, SNAPSHOT_LOG_GROWTH, SNAPSHOT_MIN_BYTES, type RunCreatedBody } from '../src/engine/store/runStore';
import { renderDecisionsMarkdown, writeDerivedFiles } from '../src/engine/store/derivedFiles';
import { indexEntryOf } from '../src/engine/domain/runIndex';
import { emptyStateData, StateDb } from '../src/engine/store/stateDb';
import { EventStream, jsonlOf } from './events';
import { BULK_EVENTS, MEASURED_APPENDS, stateJsonText, type BigRun } from './fixtures';
import type { Section } from './report';
import { median, mib, ms, percentile, ratio, timeSync, yieldToEventLoop } from './stats';

/**
 * The baseline: a single-file JSON store that keeps every event in memory and rewrites the whole
 * file, fsync'ed, on each event (what a naive lowdb-style store does to stay durable).
 */
class JsonRewriteStore {
  private readonly data: { runId: string; events: RunEvent[] };

  constructor(
    readonly file: string,
    runId: string,
    preload: RunEvent[],
  ) {
    this.data = { runId, events: [...preload] };
    if (preload.length) this.write();
  }

  append(event: RunEvent): void {
    this.data.events.push(event);
    this.write();
  }

  private write(): void {
    const fd = fs.openSync(this.file, 'w');
    try {
      const bytes = Buffer.from(JSON.stringify(this.data), 'utf8');
      let written = 0;
      while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

interface Series {
  name: string;
  events: RunEvent[];
  /** Appends before this index warm up / fill to size and are not counted. */
  measureFrom: number;
  append(event: RunEvent): void;
  samples: number[];
  close(): void;
}

const take = (stream: EventStream, count: number): RunEvent[] => Array.from({ length: count }, () => stream.next());

export interface AppendFigures {
  section: Section;
  logBytes: number;
}

/**
 * Section 1. Five series are appended to in turn, one append each per round, so disk noise hits
 * them alike: EventLog at ~100, ~10,000 and ~100,000 events, the JSON-rewrite baseline at ~100 and
 * ~10,000. Then RunStore.append (the engine's path: projection, log, index, periodic snapshot,
 * throttled run.json/DECISIONS.md) at a small and at a 100k-event run.
 */
export async function benchAppendCost(work: string, big: BigRun): Promise<AppendFigures> {
  const dir = path.join(work, 'append');
  fs.mkdirSync(dir, { recursive: true });

  // EventLog from empty: appends 1..150, counting 51..150.
  const smallStream = new EventStream('small-run');
  const small = EventLog.open(path.join(dir, 'small.jsonl')).log;
  // EventLog at 10k: 9,900 lines in bulk, then 200 real appends.
  const midStream = new EventStream('mid-run');
  const midFile = path.join(dir, 'mid.jsonl');
  fs.writeFileSync(midFile, jsonlOf(midStream, 9_900));
  const mid = EventLog.open(midFile).log;
  // EventLog at 100k: the shared big run.
  const large = EventLog.open(big.eventsFile).log;
  // The baseline at ~100 (same window as the small log) and at ~10,000.
  const rwSmallStream = new EventStream('rw-small');
  const rwSmall = new JsonRewriteStore(path.join(dir, 'rw-small.json'), 'rw-small', []);
  const rwMidStream = new EventStream('rw-mid');
  const rwMidFile = path.join(dir, 'rw-mid.json');
  const rwMid = new JsonRewriteStore(rwMidFile, 'rw-mid', take(rwMidStream, 9_975));

  const series: Series[] = [
    { name: 'EventLog@100', events: take(smallStream, 150), measureFrom: 50, append: (e) => small.append(e), samples: [], close: () => small.close() },
    { name: 'EventLog@10k', events: take(midStream, 200), measureFrom: 0, append: (e) => mid.append(e), samples: [], close: () => mid.close() },
    {
      name: 'EventLog@100k',
      events: take(big.stream, MEASURED_APPENDS),
      measureFrom: 0,
      append: (e) => large.append(e),
      samples: [],
      close: () => large.close(),
    },
    { name: 'rewrite@100', events: take(rwSmallStream, 150), measureFrom: 50, append: (e) => rwSmall.append(e), samples: [], close: () => {} },
    { name: 'rewrite@10k', events: take(rwMidStream, 50), measureFrom: 0, append: (e) => rwMid.append(e), samples: [], close: () => {} },
  ];
  const rounds = Math.max(...series.map((s) => s.events.length));
  for (let i = 0; i < rounds; i++) {
    for (const s of series) {
      const event = s.events[i];
      if (!event) continue;
      const took = timeSync(() => s.append(event));
      if (i >= s.measureFrom) s.samples.push(took);
    }
  }
  for (const s of series) s.close();
  const byName = (name: string): Series => series.find((s) => s.name === name)!;
  const med = (name: string): number => median(byName(name).samples);
  const p90 = (name: string): number => percentile(byName(name).samples, 90);
  const logBytes = fs.statSync(big.eventsFile).size;
  const midBytes = fs.statSync(midFile).size;
  const rwMidBytes = fs.statSync(rwMidFile).size;

  // RunStore.append, with the event loop turning between appends as in a real run.
  const storeSmall = await runStoreSeries(path.join(work, 'store-small'), new EventStream('store-small'));
  const storeBig = await runStoreSeries(path.join(work, 'store-big'), big.streamAtBulk, big);

  const el100 = med('EventLog@100');
  const el10k = med('EventLog@10k');
  const el100k = med('EventLog@100k');
  const rw100 = med('rewrite@100');
  const rw10k = med('rewrite@10k');
  const flat = el100k / el100;

  const section: Section = {
    title: '1. Store append cost vs log size',
    method:
      `Each append is one realistic event (task transitions, runner calls, commits, gate results with test output, critic verdicts; ` +
      `~${Math.round(logBytes / (BULK_EVENTS + MEASURED_APPENDS))} bytes a line on average) written by the real \`EventLog.append\` (write + fsync). ` +
      `The 10k and 100k logs get their first 9,900 / ${BULK_EVENTS.toLocaleString('en-US')} lines in bulk, then 200 real appends are timed; the ~100 ` +
      `figure is appends 51–150 of a fresh log. Baseline: a single-file JSON store that rewrites the whole file and fsyncs it on every event, ` +
      `timed on events 51–150 and on events 9,976–10,025. The five series take turns, one append each per round, so disk noise hits them alike. ` +
      `Figures are medians (p90 in brackets).`,
    tables: [
      {
        headers: ['store', '~100 events', '~10,000 events', '~100,000 events'],
        numeric: [1, 2, 3],
        rows: [
          ['EventLog.append (append + fsync)', `${ms(el100)} (${ms(p90('EventLog@100'))})`, `${ms(el10k)} (${ms(p90('EventLog@10k'))})`, `${ms(el100k)} (${ms(p90('EventLog@100k'))})`],
          ['baseline: rewrite whole JSON file + fsync', `${ms(rw100)} (${ms(p90('rewrite@100'))})`, `${ms(rw10k)} (${ms(p90('rewrite@10k'))})`, 'not measured'],
        ],
      },
      {
        headers: ['ratio', 'value'],
        numeric: [1],
        rows: [
          ['append@100k / append@100 (want ≈ 1)', ratio(flat)],
          ['append@10k / append@100', ratio(el10k / el100)],
          ['rewrite@100 / append@100', ratio(rw100 / el100)],
          ['rewrite@10k / append@10k', ratio(rw10k / el10k)],
        ],
      },
      {
        headers: [`RunStore.append (engine path, ${storeSmall.count} appends)`, 'median', 'p99', 'max', 'amortized (wall / appends)', 'longest pause between appends'],
        numeric: [1, 2, 3, 4, 5],
        rows: [
          [`run at 1–${storeSmall.count} events`, ms(storeSmall.median), ms(storeSmall.p99), ms(storeSmall.max), ms(storeSmall.amortized), ms(storeSmall.maxStall)],
          [
            `run at ${(BULK_EVENTS + 1).toLocaleString('en-US')}–${(BULK_EVENTS + storeBig.count).toLocaleString('en-US')} events`,
            ms(storeBig.median),
            ms(storeBig.p99),
            ms(storeBig.max),
            ms(storeBig.amortized),
            ms(storeBig.maxStall),
          ],
          [
            'ratio 100k / small',
            ratio(storeBig.median / storeSmall.median),
            ratio(storeBig.p99 / storeSmall.p99),
            ratio(storeBig.max / storeSmall.max),
            ratio(storeBig.amortized / storeSmall.amortized),
            ratio(storeBig.maxStall / storeSmall.maxStall),
          ],
        ],
      },
    ],
    notes: [
      `Sizes: the 100k log is ${mib(logBytes)}, the 10k log ${mib(midBytes)}; the baseline's 10k-event JSON file is ${mib(rwMidBytes)}, rewritten on every event.`,
      flat < 1.5
        ? `EventLog append cost does not grow with the log: append@100k / append@100 = ${ratio(flat)} (fsync dominates both).`
        : `EventLog append cost grows with the log: append@100k / append@100 = ${ratio(flat)} — investigate.`,
      `The rewrite baseline costs ${ratio(rw10k / el10k)} an append at 10,000 events, and grows linearly with the file (it is ${ratio(rw10k / rw100)} its own cost at 100).`,
      `RunStore.append (what the engine calls) adds the projection and the index entry; a snapshot in state.json is due once the log has grown by ` +
        `${SNAPSHOT_LOG_GROWTH} of state.json's size (at least ${SNAPSHOT_MIN_BYTES / 1024} KiB) and is written just after the append that made it due, and ` +
        `run.json/DECISIONS.md are rewritten at most every 300 ms, less often when rendering them takes long (at most ${DERIVED_FILES_MAX_TIME_SHARE * 100}% of the time). ` +
        `On a small run it costs about a bare append (median ${ratio(storeSmall.median / el100)}). ` +
        `At 100k events its worst single append took ${ms(storeBig.max)} (${ratio(storeBig.max / storeSmall.max)} the small run's worst) and its amortized cost, ` +
        `wall time over appends including what runs between them, is ${ratio(storeBig.amortized / storeSmall.amortized)} the small run's; ` +
        `the longest pause between two appends (deferred writes run there) was ${ms(storeBig.maxStall)} (small run: ${ms(storeSmall.maxStall)}). ` +
        `During these ${storeBig.count} appends state.json was written ${storeBig.snapshotWrites} time(s)${storeBig.snapshotWrites === 0 ? ' (no snapshot was due)' : ''} and DECISIONS.md ${storeBig.derivedWrites} time(s)` +
        ` (${mib(storeBig.decisionsBytes)}: rendering it takes ${ms(storeBig.firstRenderMs)} the first time after a load and ${ms(storeBig.renderMs)} after that, ` +
        `each decision being rendered once and kept, so after its first rewrite the store spaces them by about ` +
        `${ms(Math.max(DERIVED_FILES_INTERVAL_MS, storeBig.renderMs / DERIVED_FILES_MAX_TIME_SHARE))} here, vs ${DERIVED_FILES_INTERVAL_MS} ms on a small run).`,
      `A snapshot at 100k events (serialising the state into a ${mib(storeBig.stateJsonBytes)} state.json and writing it) takes ${ms(storeBig.snapshotMs)}; the next one is due ` +
        `after ${mib(SNAPSHOT_LOG_GROWTH * storeBig.stateJsonBytes)} more log, about ${Math.round((SNAPSHOT_LOG_GROWTH * storeBig.stateJsonBytes) / storeBig.lineBytes).toLocaleString('en-US')} events, ` +
        `i.e. ${ms(storeBig.snapshotMs / ((SNAPSHOT_LOG_GROWTH * storeBig.stateJsonBytes) / storeBig.lineBytes))} per event amortized — ` +
        `and as both grow with the run, that share stays the same at any length.`,
    ],
  };
  return { section, logBytes };
}

interface StoreSeriesResult {
  count: number;
  median: number;
  p99: number;
  max: number;
  amortized: number;
  snapshotWrites: number;
  derivedWrites: number;
  stateJsonBytes: number;
  decisionsBytes: number;
  /** Longest turn of the event loop between two appends. */
  maxStall: number;
  /** A snapshot of the state after the appends, taken and written (StateDb.setSnapshot + write). */
  snapshotMs: number;
  /** Average bytes of a log line. */
  lineBytes: number;
  /** renderDecisionsMarkdown of the state after the appends: the first time, and again. */
  firstRenderMs: number;
  renderMs: number;
}

const STORE_APPENDS = 600;

/**
 * RunStore.append for STORE_APPENDS events: from an empty run (createRun first), or with `big`
 * on a copy of the big run's first BULK_EVENTS events as a clean stop leaves it (snapshot at
 * the end, run.json and DECISIONS.md written), loaded before timing.
 */
async function runStoreSeries(root: string, source: EventStream, big?: BigRun): Promise<StoreSeriesResult> {
  fs.mkdirSync(root, { recursive: true });
  const runId = source.runId;
  if (big) {
    const file = runPaths(taskloomPaths(root).runsDir, runId).events;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, big.bulkText);
    fs.writeFileSync(taskloomPaths(root).stateDb, stateJsonText(source.state!, source.state!, Buffer.byteLength(big.bulkText)));
    // run.json and DECISIONS.md as a clean stop leaves them (written at the stop).
    writeDerivedFiles(runPaths(taskloomPaths(root).runsDir, runId), source.state!);
  }
  const warnings: string[] = [];
  const { store } = RunStore.open(root, { command: 'bench', onWarning: (m) => warnings.push(m) });
  try {
    if (big) store.loadRun(runId);
    else store.createRun(runId, source.nextBody() as RunCreatedBody);
    const bodies: RunEventBody[] = Array.from({ length: STORE_APPENDS }, () => source.nextBody());
    const paths = store.runPaths(runId);
    const stateDb = taskloomPaths(root).stateDb;
    const mtimeOf = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);
    let snapshotWrites = 0;
    let derivedWrites = 0;
    let lastDbMtime = mtimeOf(stateDb);
    let lastDerivedMtime = mtimeOf(paths.decisions);
    const samples: number[] = [];
    let maxStall = 0;
    const started = performance.now();
    for (const body of bodies) {
      samples.push(timeSync(() => store.append(runId, body)));
      const stallStarted = performance.now();
      await yieldToEventLoop();
      maxStall = Math.max(maxStall, performance.now() - stallStarted);
      // Cheap stat calls, outside the timed append, to count the rewrites the store made.
      const dbMtime = mtimeOf(stateDb);
      if (dbMtime !== lastDbMtime) snapshotWrites++;
      lastDbMtime = dbMtime;
      const derivedMtime = mtimeOf(paths.decisions);
      if (derivedMtime !== lastDerivedMtime) derivedWrites++;
      lastDerivedMtime = derivedMtime;
    }
    const wall = performance.now() - started;
    // What a snapshot of this state costs when one is due: serialised into a state.json and written.
    const dbDir = fs.mkdtempSync(path.join(root, 'snapshot-'));
    const { db } = StateDb.open(path.join(dbDir, 'state.json'), emptyStateData);
    const live = store.state(runId);
    db.putRun(indexEntryOf(live));
    const snapshotMs = timeSync(() => {
      db.setSnapshot(runId, live, fs.statSync(paths.events).size);
      db.write();
    });
    fs.rmSync(dbDir, { recursive: true, force: true });
    // What a rewrite of DECISIONS.md costs now (the first render of a loaded state, then one that reuses
    // the decisions rendered before), and so how often the store allows one.
    const firstRenderMs = timeSync(() => renderDecisionsMarkdown(live));
    const renderMs = timeSync(() => renderDecisionsMarkdown(live));
    if (warnings.length) throw new Error(`RunStore warned during the benchmark: ${warnings.join('; ')}`);
    const log = fs.statSync(paths.events).size;
    return {
      count: STORE_APPENDS,
      median: median(samples),
      p99: percentile(samples, 99),
      max: Math.max(...samples),
      amortized: wall / STORE_APPENDS,
      snapshotWrites,
      derivedWrites,
      stateJsonBytes: fs.statSync(stateDb).size,
      decisionsBytes: fs.existsSync(paths.decisions) ? fs.statSync(paths.decisions).size : 0,
      maxStall,
      snapshotMs,
      lineBytes: log / store.state(runId).lastSeq,
      firstRenderMs,
      renderMs,
    };
  } finally {
    store.close();
  }
}
