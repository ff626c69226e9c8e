import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPaths, taskloomPaths } from '../src/engine/store/paths';
import { runStats } from '../src/engine/usecases/runStats';
import { EventStream } from './events';
import type { Section } from './report';
import { median, mib, ms, ratio, timeSync } from './stats';

const RUNS = 1_000;
const EVENTS_PER_RUN = 1_000;
const TASKS_PER_RUN = 10;
const WARM_REPS = 5;
const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** 1,000 runs of 1,000 events each (bench/events.ts: tasks in the actor → gate → critic loop), written as the store writes logs. */
function writeRuns(root: string): number {
  let bytes = 0;
  const runsDir = taskloomPaths(root).runsDir;
  for (let r = 0; r < RUNS; r++) {
    const runId = `20260105-${String(90000 + r).padStart(6, '0')}-b${String(r).padStart(3, '0')}`;
    const stream = new EventStream(runId, TASKS_PER_RUN);
    mkdirSync(join(runsDir, runId), { recursive: true });
    const fd = openSync(runPaths(runsDir, runId).events, 'w');
    const lines: string[] = [];
    for (let e = 0; e < EVENTS_PER_RUN; e++) lines.push(JSON.stringify(stream.next()));
    const text = `${lines.join('\n')}\n`;
    writeSync(fd, text);
    closeSync(fd);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** What any fold of the logs costs at least: reading every log and JSON.parse of every line, nothing else. */
function parseEveryLine(root: string): void {
  const runsDir = taskloomPaths(root).runsDir;
  for (const runId of readdirSync(runsDir)) {
    for (const line of readFileSync(runPaths(runsDir, runId).events, 'utf8').split('\n')) if (line) JSON.parse(line);
  }
}

/** What reading the summaries costs at least: each summary.json read and parsed, no check, no stat of its log. */
function parseEverySummary(root: string): void {
  const runsDir = taskloomPaths(root).runsDir;
  for (const runId of readdirSync(runsDir)) JSON.parse(readFileSync(runPaths(runsDir, runId).summary, 'utf8'));
}

interface Cost {
  wall: number;
  /** CPU time (user + system): what the work itself takes when other processes share the cores. */
  cpu: number;
}

function inProcess(work: () => void): Cost {
  const cpu = process.cpuUsage();
  const wall = timeSync(work);
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** A fresh CLI process, as a person typing the command meets it: its wall time, and its CPU time as bash's `time` reports it. */
function cliCost(args: string[], cwd: string): Cost {
  const started = performance.now();
  // The built CLI, as users run it: a fresh process, its bundle loaded, no summary in memory; bash only to time it.
  const result = spawnSync('bash', ['-c', 'TIMEFORMAT="%U %S"; time "$@" >/dev/null', 'bash', process.execPath, CLI, ...args], { cwd, encoding: 'utf8' });
  const wall = performance.now() - started;
  if (result.status !== 0) throw new Error(`taskloom ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  const [user, system] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall, cpu: (user! + system!) * 1000 };
}

const medianCost = (costs: Cost[]): Cost => ({ wall: median(costs.map((c) => c.wall)), cpu: median(costs.map((c) => c.cpu)) });

/**
 * Section 13. `taskloom stats` over 1,000 runs / 1,000,000 events. Rebuild: no summary yet (logs
 * written before summaries existed): every log folded and its summary written. Cold: a fresh CLI
 * process, summaries on disk (as each run's end leaves them). Warm: the use case again in this
 * process. Each against its floor measured here: JSON.parse of every log line; a CLI process that
 * only prints its version; JSON.parse of every summary file.
 */
export function benchStatsCost(): Section {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-stats-')));
  try {
    // stats finds the repository's root through git, as in a user's checkout: a real repository with one commit.
    execFileSync('git', ['-c', 'init.defaultBranch=main', 'init', '-q'], { cwd: root });
    execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: root });
    const logBytes = writeRuns(root);
    const parseFloor = inProcess(() => parseEveryLine(root));
    let runs = 0;
    const rebuild = inProcess(() => {
      runs = runStats(root).stats.runs;
    });
    if (runs !== RUNS) throw new Error(`stats counted ${runs} runs, expected ${RUNS}`);
    const summaryBytes = readdirSync(taskloomPaths(root).runsDir).reduce((n, id) => n + statSync(runPaths(taskloomPaths(root).runsDir, id).summary).size, 0);
    const processFloor = medianCost([0, 1, 2].map(() => cliCost(['--version'], root)));
    const cold = medianCost([0, 1, 2].map(() => cliCost(['stats', '--json'], root)));
    const warm = medianCost(Array.from({ length: WARM_REPS }, () => inProcess(() => runStats(root))));
    const summaryFloor = medianCost(Array.from({ length: WARM_REPS }, () => inProcess(() => parseEverySummary(root))));
    const row = (name: string, c: Cost, floor: Cost, floorIs: string, target: string) => [name, ms(c.wall), ms(c.cpu), ms(floor.wall), floorIs, ratio(c.wall / floor.wall), target];
    const verdict = (c: Cost, targetMs: number, name: string) =>
      `${name} ${c.wall <= targetMs ? 'meets' : 'misses'} its ${ms(targetMs)} target in wall time (${ms(c.wall)}) and ${c.cpu <= targetMs ? 'meets' : 'misses'} it in CPU time (${ms(c.cpu)})`;
    const events = (RUNS * EVENTS_PER_RUN).toLocaleString('en');
    return {
      title: '13. taskloom stats over 1,000 runs (1,000,000 events)',
      method:
        `${RUNS.toLocaleString('en')} runs of ${EVENTS_PER_RUN.toLocaleString('en')} events (${TASKS_PER_RUN} tasks each in the actor → gate → critic loop of bench/events.ts; ` +
        `${events} events, ${mib(logBytes)} of logs). Rebuild: no summary yet, every log folded and its summary written (in this process). ` +
        `Cold: a fresh \`taskloom stats --json\` process with the summaries on disk (median of 3). Warm: the use case again in this process (median of ${WARM_REPS}). ` +
        'Each against its floor, measured in the same run.',
      tables: [
        {
          headers: ['case', 'wall', 'CPU', 'floor (wall)', 'floor is', 'ratio (wall)', 'target'],
          rows: [
            row('rebuild (no summaries)', rebuild, parseFloor, 'JSON.parse of every log line', '—'),
            row('cold (fresh CLI process)', cold, processFloor, '`taskloom --version` process', '≤ 2 s'),
            row('warm (use case again)', warm, summaryFloor, 'JSON.parse of every summary.json', '≤ 200 ms'),
          ],
          numeric: [1, 2, 3, 5],
        },
      ],
      notes: [
        `${verdict(cold, 2000, 'Cold')}; ${verdict(warm, 200, 'warm')}. Load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores at the end: wall times stretch with the load, CPU times much less.`,
        `The summaries take ${mib(summaryBytes)} (${((summaryBytes / logBytes) * 100).toFixed(2)}% of the logs).`,
        'Rebuild is what the first `stats` after an upgrade (or on logs of a release before summaries) pays once; a run that ends writes its own summary, and a run that goes on has only its new events folded.',
      ],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
