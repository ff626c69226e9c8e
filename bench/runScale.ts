// How the engine's cost grows with the size of a run: whole runs of 20, 100 and 500 independent
// tasks and chains of 20 and 100, on a repository of ~200 small files.
// `node --expose-gc --import tsx bench/runScale.ts` prints the table (RUN_SCALE=independent:20,chain:20 for a subset).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan } from '../src/engine/domain/plan';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../src/engine/domain/runConfig';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxMode } from '../src/engine/domain/sandboxSettings';
import { TaskloomEngine } from '../src/engine/run/engine';
import { GitTimer } from '../test/helpers/gitTimer';
import { makeTempRepo } from '../test/helpers/tempRepo';
import { instantRunner } from './instantAgent';
import { renderText, type Section } from './report';
import { mib, ms } from './stats';

export type Shape = 'independent' | 'chain';
const MAX_PARALLEL = 4;
/** A run still going after this long is cancelled and reported as capped. */
const RUN_BUDGET_MS = Number(process.env.RUN_SCALE_BUDGET_S ?? 600) * 1000;
const DEFAULT_CASES = 'independent:20,independent:100,independent:500,chain:20,chain:100';

/** ~200 small files in a few folders. */
function repoFiles(): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# bench repo\n', 'package.json': '{"name":"bench"}\n' };
  for (const dir of ['src/core', 'src/api', 'src/ui', 'test', 'docs']) {
    for (let i = 0; i < 40; i++) files[`${dir}/file${i}.js`] = `// ${dir} ${i}\nexport const v${i} = ${i};\n`;
  }
  return files;
}

export function scalePlan(shape: Shape, count: number): Plan {
  const id = (i: number) => `t${String(i).padStart(3, '0')}`;
  return {
    goal: `bench: ${count} ${shape} tasks`,
    tasks: Array.from({ length: count }, (_, i) => ({
      id: id(i),
      title: `Task ${i}`,
      description: `Write out-${id(i)}.txt`,
      acceptance: [],
      dependsOn: shape === 'chain' && i > 0 ? [id(i - 1)] : [],
    })),
  };
}

function dirBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    total += entry.isDirectory() ? dirBytes(p) : entry.isFile() ? statSync(p).size : 0;
  }
  return total;
}

/** CPU seconds so far (Linux /proc, else NaN): this process, its reaped children (git, gates), and the whole machine. */
function cpuNow(): { self: number; children: number; machine: number } {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ').map(Number);
    const m = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
    const busy = m.reduce((a, b) => a + b, 0) - m[3]! - m[4]!; // all but idle and iowait
    return { self: (f[11]! + f[12]!) / 100, children: (f[13]! + f[14]!) / 100, machine: busy / 100 };
  } catch {
    return { self: NaN, children: NaN, machine: NaN };
  }
}

export interface ScaleResult {
  shape: Shape;
  tasks: number;
  merged: number;
  status: string;
  summary: string;
  capped: boolean;
  wall: number;
  busy: number;
  /** Wall time from integration_prepared to the end: merges, integration gate, worktree cleanup, close. */
  commands: number;
  events: number;
  peakRss: number;
  taskloomBytes: number;
  /** CPU seconds: this process, its children, other processes on the machine. */
  cpu: { self: number; children: number; others: number };
}

/** How a whole run's agents and processes are set up; by default the in-process agent, sandbox mode `auto`. */
export interface ScaleSetup {
  /** The scripted agent on this scenario, a real process per call, instead of the in-process agent. */
  scenarioPath?: string;
  sandbox?: SandboxMode;
}

export async function runScaleOnce(shape: Shape, count: number, setup: ScaleSetup = {}): Promise<ScaleResult> {
  const repo = makeTempRepo({ files: repoFiles() });
  (globalThis as { gc?: () => void }).gc?.();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  try {
    const agent = { kind: 'scripted', scriptPath: setup.scenarioPath ?? '/dev/null' } as const;
    const sandbox = setup.sandbox ? { sandbox: { ...DEFAULT_SANDBOX_SETTINGS, mode: setup.sandbox } } : {};
    const config: RunConfig = { ...DEFAULT_RUN_CONFIG, maxParallel: MAX_PARALLEL, gateCommands: ['true'], agent, ...sandbox };
    const createRunner = setup.scenarioPath ? undefined : () => instantRunner;
    const git = new GitTimer();
    const cpu0 = cpuNow();
    const started = performance.now();
    const engine = await TaskloomEngine.open(repo.dir, { command: 'bench', createRunner, gitObserver: git });
    const abort = new AbortController();
    const budget = setTimeout(() => abort.abort(new Error('bench budget')), RUN_BUDGET_MS);
    let result: Omit<ScaleResult, 'wall' | 'busy' | 'commands' | 'peakRss' | 'taskloomBytes' | 'cpu'>;
    try {
      const session = engine.createRun(scalePlan(shape, count), config);
      engine.approvePlan(session, 'autopilot');
      const status = await engine.drive(session, abort.signal);
      // Done = merged into the integration branch (the task's final state name is the run loop's business).
      const merged = session.state.integration.merged.length;
      const summary = session.state.finishedSummary ?? '';
      result = { shape, tasks: count, merged, status, summary, capped: abort.signal.aborted, events: session.state.lastSeq };
    } finally {
      clearTimeout(budget);
      engine.close();
    }
    const ended = performance.now();
    const wall = ended - started;
    const cpu1 = cpuNow();
    const [self, children] = [cpu1.self - cpu0.self, cpu1.children - cpu0.children];
    const cpu = { self, children, others: cpu1.machine - cpu0.machine - self - children };
    if (!result.capped && (result.status !== 'completed' || result.merged !== count)) {
      throw new Error(`${shape} ${count}: run ended ${result.status} with ${result.merged}/${count} merged: ${result.summary}`);
    }
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const taskloomBytes = dirBytes(join(repo.dir, '.taskloom'));
    return { ...result, wall, busy: git.busyMs, commands: git.commands, peakRss, taskloomBytes, cpu };
  } finally {
    clearInterval(sampler);
    repo.cleanup();
  }
}

const cases = (): Array<[Shape, number]> =>
  (process.env.RUN_SCALE?.trim() || DEFAULT_CASES).split(',').map((c) => [c.split(':')[0] as Shape, Number(c.split(':')[1])]);

/** Whole runs through the engine API at growing sizes: what the engine costs per task beyond git, and what it keeps. */
export async function benchRunScale(onResult?: (r: ScaleResult) => void): Promise<Section> {
  const results: ScaleResult[] = [];
  for (const [shape, count] of cases()) {
    const r = await runScaleOnce(shape, count);
    onResult?.(r);
    results.push(r);
  }
  const perTask = (r: ScaleResult) => (r.wall - r.busy) / Math.max(1, r.merged);
  const notes: string[] = [];
  for (const shape of ['independent', 'chain'] as const) {
    const rows = results.filter((r) => r.shape === shape && !r.capped);
    if (rows.length < 2) continue;
    const [a, b] = [rows[0]!, rows.at(-1)!];
    notes.push(
      `${shape}: beyond-git time per task goes from ${ms(perTask(a))} at ${a.tasks} tasks to ${ms(perTask(b))} at ${b.tasks} ` +
        `(${(perTask(b) / perTask(a)).toFixed(1)}× for ${(b.tasks / a.tasks).toFixed(0)}× the tasks; constant per-task cost would be 1.0×).`,
    );
  }
  const loaded = results.filter((r) => (1000 * r.cpu.others) / r.wall > 0.2).map((r) => `${r.tasks} ${r.shape}`);
  if (loaded.length) notes.push(`Other processes used over 0.2 cores during ${loaded.join(', ')}: wall figures there are inflated (CPU ones less).`);
  for (const r of results.filter((x) => x.capped)) {
    notes.push(`${r.tasks} ${r.shape} was CAPPED: cancelled after ${RUN_BUDGET_MS / 1000} s with ${r.merged} merged; its figures cover those.`);
  }
  return {
    title: '8. Engine at scale',
    method:
      `Each row is one whole run (\`TaskloomEngine.open\`, \`createRun\`, \`approvePlan\`, \`drive\` to a merged integration branch, \`close\`) ` +
      `in a fresh temp repository of ${Object.keys(repoFiles()).length} small files in 5 folders, with \`createRunner\` returning an in-process agent ` +
      `(the actor writes one file, the critic answers green), gate \`true\`, maxParallel ${MAX_PARALLEL}. Beyond git = (wall − git busy time) / tasks merged, git busy time being the wall time during which at least one git process ran (a \`GitTimer\` passed as \`EngineOptions.gitObserver\`). ` +
      'Git commands per task is the lever: every spawn forks this process (3–8 ms of the main thread), and a command that scans every worktree costs more the more there are. ' +
      `CPU from /proc: the engine process, its reaped children (git, gate), and the rest of the machine ("other load", in cores; above ~0.2 the machine was shared). Peak RSS samples process.memoryUsage().rss every 100 ms (after a gc when --expose-gc). .taskloom/ is measured after close (worktrees removed by then).`,
    tables: [
      {
        headers: ['plan', 'status', 'events', 'git cmds / task', 'wall', 'git busy', 'beyond git / task', 'wall / task',
          'CPU / task: engine, git+gate', 'other load', 'peak RSS', '.taskloom/'],
        numeric: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        rows: results.map((r) => [
          `${r.tasks} ${r.shape}`,
          r.capped ? `capped (${r.merged}/${r.tasks} merged)` : r.status,
          String(r.events),
          (r.commands / Math.max(1, r.merged)).toFixed(1),
          `${(r.wall / 1000).toFixed(1)} s`,
          `${(r.busy / 1000).toFixed(1)} s`,
          ms(perTask(r)),
          ms(r.wall / Math.max(1, r.merged)),
          `${ms((1000 * r.cpu.self) / r.merged)}, ${ms((1000 * r.cpu.children) / r.merged)}`,
          `${((1000 * r.cpu.others) / r.wall).toFixed(2)} cores`,
          mib(r.peakRss),
          mib(r.taskloomBytes),
        ]),
      },
    ],
    notes,
  };
}

if (require.main === module) {
  benchRunScale((r) => process.stderr.write(`runScale: ${r.tasks} ${r.shape}: ${(r.wall / 1000).toFixed(1)} s (${r.status})\n`))
    .then((section) => console.log(renderText(section)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
