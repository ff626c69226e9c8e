// What a task worktree costs on a big repository: preparing it, the disk the run's worktrees hold,
// and removing them, for whole runs of 8, 32 and 100 tasks on a synthetic 50,000-file repository,
// against `git worktree add` / `git worktree remove` of the same repository measured in the same process.
// `node --import tsx bench/worktreeCost.ts` prints the table (WORKTREE_COST_TASKS=8,32 for a subset).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { freemem, homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plan } from '../src/engine/domain/plan';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../src/engine/domain/runConfig';
import { TaskloomEngine } from '../src/engine/run/engine';
import { measureDiskUsage } from '../src/engine/workspace/diskUsage';
import { IntegrationBranch } from '../src/engine/workspace/integrationBranch';
import { WorktreeManager } from '../src/engine/workspace/worktreeManager';
import { POOL_NAME } from '../src/engine/workspace/worktreePool';
import { instantRunner } from './instantAgent';
import type { Section } from './report';
import { median, ratio } from './stats';

const FILES = 50_000;
const DIRS = 500;
const MAX_PARALLEL = 4;
/** Bump when the generated content changes, so an old cache is rebuilt. */
const REPO_VERSION = 'v1';
const DEFAULT_TASKS = '8,32,100';
const LOW_MEMORY_BYTES = 2 * 1024 ** 3;

const gitEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^GIT_/.test(k))), LC_ALL: 'C' } as NodeJS.ProcessEnv;
const git = (cwd: string, args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: gitEnv,
    encoding: 'utf8',
    stdio: 'pipe',
    maxBuffer: 1 << 26,
  });

/** ~4.4 KB of plausible source per file, the same bytes on every machine. */
function fileContent(index: number): string {
  const lines = [`// module ${index}: generated for the Taskloom worktree benchmark`, ''];
  for (let k = 0; k < 60; k++) {
    lines.push(`export function f${index}_${k}(x) { return x * ${(index * 31 + k * 7) % 997} + ${k}; } // ${(index ^ (k * 2654435761)) >>> 0}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The 50,000-file repository, generated once into a bare repository in the cache folder with
 * `git fast-import` (no checkout to write, so it takes seconds, not minutes), and cloned per run.
 */
export async function bigRepository(): Promise<string> {
  const cache = process.env.TASKLOOM_BENCH_CACHE ?? join(homedir(), '.cache', 'taskloom');
  const dir = join(cache, `bench-50k-${REPO_VERSION}.git`);
  if (existsSync(join(dir, 'taskloom-bench-ready'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '--bare']);
  const importer = spawn('git', ['fast-import', '--quiet', '--depth=0'], { cwd: dir, env: gitEnv, stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<void>((resolve, reject) =>
    importer.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)))),
  );
  const write = (chunk: string): Promise<void> =>
    importer.stdin.write(chunk) ? Promise.resolve() : new Promise((resolve) => importer.stdin.once('drain', () => resolve()));
  const paths: string[] = [];
  const blob = async (mark: number, content: string) => write(`blob\nmark :${mark}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
  for (let i = 0; i < FILES; i++) {
    await blob(i + 1, fileContent(i));
    paths.push(`src/m${String(i % DIRS).padStart(3, '0')}/f${String(Math.floor(i / DIRS)).padStart(3, '0')}.js`);
  }
  const extra: Record<string, string> = {
    'README.md': '# bench: 50,000 files\n',
    '.gitignore': 'node_modules/\n',
    'package.json': '{"name":"bench-50k","version":"1.0.0","private":true}\n',
    'package-lock.json': '{"name":"bench-50k","lockfileVersion":3,"packages":{}}\n',
  };
  let mark = FILES;
  for (const [path, content] of Object.entries(extra)) {
    await blob(++mark, content);
    paths.push(path);
  }
  const message = 'bench: 50,000 files\n';
  await write(`commit refs/heads/main\nauthor bench <bench@localhost> 1767225600 +0000\ncommitter bench <bench@localhost> 1767225600 +0000\n`);
  await write(`data ${Buffer.byteLength(message)}\n${message}`);
  for (let i = 0; i < paths.length; i += 1000) {
    await write(paths.slice(i, i + 1000).map((p, j) => `M 100644 :${i + j + 1} ${p}\n`).join(''));
  }
  await write('\n');
  importer.stdin.end();
  await done;
  git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  writeFileSync(join(dir, 'taskloom-bench-ready'), `${REPO_VERSION}\n`);
  return dir;
}

/** A working clone of the cache (objects shared, not copied) with the user's checkout. */
function cloneOf(cache: string, work: string, name: string): string {
  const dir = join(work, name);
  git(work, ['clone', '-q', '--shared', cache, dir]);
  writeFileSync(join(dir, '.git', 'info', 'exclude'), '.taskloom/\n');
  return dir;
}

const timed = (work: () => void): number => {
  const t0 = performance.now();
  work();
  return performance.now() - t0;
};

export interface GitBaseline {
  addMs: number;
  removeMs: number;
  checkoutBytes: number;
  checkoutFiles: number;
}

/** `git worktree add` and `git worktree remove --force` of the whole repository, 3 times each (median). */
function measureGit(repo: string): GitBaseline {
  const adds: number[] = [];
  const removes: number[] = [];
  let usage = { bytes: 0, files: 0 };
  for (let i = 0; i < 3; i++) {
    const path = join(repo, '.taskloom', 'baseline', `w${i}`);
    adds.push(timed(() => git(repo, ['worktree', 'add', '-q', '-b', `baseline-${i}`, path, 'HEAD'])));
    if (i === 0) usage = duOf(path);
    removes.push(timed(() => git(repo, ['worktree', 'remove', '--force', path])));
  }
  rmSync(join(repo, '.taskloom'), { recursive: true, force: true });
  return { addMs: median(adds), removeMs: median(removes), checkoutBytes: usage.bytes, checkoutFiles: usage.files };
}

/** `du -sk`: the file system's own count of allocated blocks. */
function duOf(path: string): { bytes: number; files: number } {
  const kib = Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]);
  const files = Number(execFileSync('sh', ['-c', `find "${path}" -type f | wc -l`], { encoding: 'utf8' }).trim());
  return { bytes: kib * 1024, files };
}

function plan(count: number): Plan {
  const id = (i: number) => `t${String(i).padStart(3, '0')}`;
  return {
    goal: `bench: ${count} tasks on 50,000 files`,
    tasks: Array.from({ length: count }, (_, i) => ({ id: id(i), title: `Task ${i}`, description: `Write out-${id(i)}.txt`, acceptance: [], dependsOn: [] })),
  };
}

/** Times every call of the named async methods (bench-only instrumentation, put back afterwards). */
function timeMethods(targets: Array<[object, string[]]>): { times: Map<string, number[]>; restore(): void } {
  const times = new Map<string, number[]>();
  const undo: Array<() => void> = [];
  for (const [proto, names] of targets) {
    for (const name of names) {
      const original = (proto as Record<string, unknown>)[name];
      if (typeof original !== 'function') continue;
      const list: number[] = [];
      times.set(name, list);
      (proto as Record<string, unknown>)[name] = async function (this: unknown, ...args: unknown[]) {
        const t0 = performance.now();
        let result: unknown;
        try {
          result = await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
          return result;
        } finally {
          list.push(performance.now() - t0);
          // A prepared worktree says whether it was recycled: those are timed apart too.
          if (result && typeof result === 'object' && 'recycled' in result && result.recycled) {
            if (!times.has(`${name}:recycled`)) times.set(`${name}:recycled`, []);
            times.get(`${name}:recycled`)!.push(performance.now() - t0);
          }
        }
      };
      undo.push(() => ((proto as Record<string, unknown>)[name] = original));
    }
  }
  return { times, restore: () => undo.forEach((u) => u()) };
}

/** Task worktree methods that make one ready, and the ones that remove one. */
const PREPARE_METHODS = ['prepareTaskWorktree'];
const REMOVE_METHODS = ['removeMergedTaskWorktree', 'cleanup'];

export interface WorktreeCostResult {
  tasks: number;
  /** Stopped before the end because memory ran low (the figures cover what ran until then). */
  capped: boolean;
  merged: number;
  wallMs: number;
  prepareMedianMs: number;
  prepareP90Ms: number;
  /** Median prepare of the recycled worktrees alone (NaN when none was). */
  recycledMedianMs: number;
  /** Most task/integration checkouts on disk at once (sampled every 200 ms). */
  peakCheckouts: number;
  /** Real blocks of the run's worktree folder at that peak (the checkout size × count; one `du` at the end confirms). */
  peakBytes: number;
  /** Time spent removing worktrees, during the run and at its end. */
  removeMs: number;
  /** Of which at the end of the run (cleanup, integration worktree). */
  endRemoveMs: number;
  recycled: number;
  leftBytes: number;
}

async function runOnce(repo: string, count: number, baseline: GitBaseline): Promise<WorktreeCostResult> {
  const worktreesRoot = join(repo, '.taskloom', 'worktrees');
  const countCheckouts = (): number => {
    if (!existsSync(worktreesRoot)) return 0;
    let n = 0;
    for (const run of readdirSync(worktreesRoot)) {
      for (const name of readdirSync(join(worktreesRoot, run))) {
        // Parked worktrees live one level down, in the run's pool.
        n += name === POOL_NAME ? readdirSync(join(worktreesRoot, run, name)).length : 1;
      }
    }
    return n;
  };
  let peak = 0;
  const abort = new AbortController();
  const sampler = setInterval(() => {
    peak = Math.max(peak, countCheckouts());
    // Checkouts in a tmpfs (WORKTREE_COST_DIR=/dev/shm) are memory: stop before the machine runs out.
    if (freemem() < LOW_MEMORY_BYTES && !abort.signal.aborted) abort.abort(new Error('memory nearly exhausted'));
  }, 200);
  const timing = timeMethods([
    [WorktreeManager.prototype, [...PREPARE_METHODS, ...REMOVE_METHODS]],
    [IntegrationBranch.prototype, ['remove']],
  ]);
  try {
    const agent = { kind: 'scripted', scriptPath: '/dev/null' } as const;
    const config: RunConfig = { ...DEFAULT_RUN_CONFIG, maxParallel: MAX_PARALLEL, gateCommands: ['true'], agent };
    const started = performance.now();
    const engine = await TaskloomEngine.open(repo, { command: 'bench', createRunner: () => instantRunner });
    let merged = 0;
    let recycled = 0;
    try {
      const session = engine.createRun(plan(count), config);
      session.onEvent((e) => {
        if (e.type === 'worktree_prepared' && 'recycledFrom' in e && e.recycledFrom) recycled++;
      });
      engine.approvePlan(session, 'autopilot');
      const status = await engine.drive(session, abort.signal);
      merged = session.state.integration.merged.length;
      if (!abort.signal.aborted && (status !== 'completed' || merged !== count)) throw new Error(`${count} tasks: run ended ${status}, ${merged} merged`);
    } finally {
      engine.close();
    }
    const wallMs = performance.now() - started;
    peak = Math.max(peak, countCheckouts());
    const prepares = timing.times.get('prepareTaskWorktree') ?? [];
    const sum = (names: string[]) => names.flatMap((n) => timing.times.get(n) ?? []).reduce((a, b) => a + b, 0);
    const sorted = [...prepares].sort((a, b) => a - b);
    return {
      tasks: count,
      capped: abort.signal.aborted,
      merged,
      wallMs,
      prepareMedianMs: median(prepares),
      prepareP90Ms: sorted[Math.floor(sorted.length * 0.9)] ?? Number.NaN,
      recycledMedianMs: median(timing.times.get('prepareTaskWorktree:recycled') ?? []),
      peakCheckouts: peak,
      peakBytes: peak * baseline.checkoutBytes,
      removeMs: sum([...REMOVE_METHODS, 'remove']),
      endRemoveMs: sum(['cleanup', 'remove']),
      recycled,
      leftBytes: (await measureDiskUsage(worktreesRoot)).bytes,
    };
  } finally {
    clearInterval(sampler);
    timing.restore();
  }
}

const gb = (bytes: number): string => (bytes >= 1 << 30 ? `${(bytes / (1 << 30)).toFixed(1)} GiB` : `${(bytes / (1 << 20)).toFixed(0)} MiB`);
const sec = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

export async function benchWorktreeCost(onResult?: (r: WorktreeCostResult) => void): Promise<Section> {
  const cacheStarted = performance.now();
  const cache = await bigRepository();
  const generatedMs = performance.now() - cacheStarted;
  // WORKTREE_COST_DIR=/dev/shm measures git and Taskloom rather than a slow disk's file creation.
  const work = realpathSync(mkdtempSyncIn(process.env.WORKTREE_COST_DIR || tmpdir()));
  const results: WorktreeCostResult[] = [];
  let baseline: GitBaseline;
  try {
    const first = cloneOf(cache, work, 'baseline');
    baseline = measureGit(first);
    rmSync(first, { recursive: true, force: true });
    const counts = (process.env.WORKTREE_COST_TASKS?.trim() || DEFAULT_TASKS).split(',').map(Number);
    for (const count of counts) {
      const repo = cloneOf(cache, work, `run-${count}`);
      try {
        const r = await runOnce(repo, count, baseline);
        onResult?.(r);
        results.push(r);
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const b = baseline;
  const notes: string[] = [];
  for (const r of results.filter((x) => x.capped)) {
    notes.push(`${r.tasks} tasks was STOPPED when free memory fell under ${gb(LOW_MEMORY_BYTES)}, with ${r.merged} merged and ${r.peakCheckouts} checkouts on disk: its figures cover that part.`);
  }
  const last = results.filter((r) => !r.capped).at(-1);
  if (last) {
    const fits = last.peakCheckouts <= MAX_PARALLEL + 1;
    notes.push(
      `Disk at ${last.tasks} tasks: at most ${last.peakCheckouts} checkouts at once (goal ≤ maxParallel + 1 = ${MAX_PARALLEL + 1}): ${fits ? 'met' : 'NOT met'}.`,
    );
    const ready = last.recycledMedianMs / b.addMs;
    notes.push(
      Number.isFinite(ready)
        ? `A recycled worktree at ${last.tasks} tasks is ready in a median ${ratio(ready)} \`git worktree add\` (goal ≤ 0.2×): ${ready <= 0.2 ? 'met' : 'NOT met'}; all prepares, new ones included: ${ratio(last.prepareMedianMs / b.addMs)}.`
        : `No worktree was recycled: every prepare is a new checkout (median ${ratio(last.prepareMedianMs / b.addMs)} \`git worktree add\`).`,
    );
    const firstRow = results[0]!;
    if (results.length > 1) {
      notes.push(
        `Worktree removal: ${sec(firstRow.removeMs)} at ${firstRow.tasks} tasks, ${sec(last.removeMs)} at ${last.tasks} ` +
          `(${(last.removeMs / Math.max(1, firstRow.removeMs)).toFixed(1)}× for ${(last.tasks / firstRow.tasks).toFixed(1)}× the tasks; independent of the number of tasks would be ~1×).`,
      );
    }
  }
  notes.push(`Cached repository: ${generatedMs > 5000 ? `generated in ${sec(generatedMs)}` : 'reused'} (${FILES.toLocaleString('en')} files, bare, in the cache folder).`);
  return {
    title: '9. Worktree cost on a 50,000-file repository',
    method:
      `A synthetic repository of ${FILES.toLocaleString('en')} small source files (${b.checkoutFiles.toLocaleString('en')} files and ${gb(b.checkoutBytes)} checked out, \`du -sk\`), ` +
      'generated once with `git fast-import` into ~/.cache/taskloom (TASKLOOM_BENCH_CACHE) and cloned with `--shared` per run' +
      `${process.env.WORKTREE_COST_DIR ? ` into ${process.env.WORKTREE_COST_DIR} (WORKTREE_COST_DIR)` : ''}. ` +
      `Baselines in the same process, median of 3: \`git worktree add\` ${sec(b.addMs)}, \`git worktree remove --force\` ${sec(b.removeMs)}. ` +
      `Each row is one whole run through the engine API (in-process agent: the actor writes one file, the critic answers green; gate \`true\`; maxParallel ${MAX_PARALLEL}, on this machine's cores). ` +
      'Prepare = wall time of each `prepareTaskWorktree` call (waiting for other worktree operations included), median and p90, as a ratio to `git worktree add`. ' +
      'Disk = most checkouts present at once (task and integration worktrees, sampled every 200 ms) × one checkout\'s `du`. ' +
      'Removal = wall time of every `removeMergedTaskWorktree` (removing or parking a merged task\'s worktree) and of the end\'s cleanup (the pool and the integration worktree), as a ratio to one `git worktree remove`.',
    tables: [
      {
        headers: ['tasks', 'wall', 'prepare median', '× add', 'prepare p90', 'recycled', 'recycled median', '× add', 'peak checkouts', 'peak disk', 'removal', '× remove', 'at the end', 'left'],
        numeric: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
        rows: results.map((r) => [
          r.capped ? `${r.tasks} (stopped at ${r.merged} merged)` : String(r.tasks),
          sec(r.wallMs),
          sec(r.prepareMedianMs),
          ratio(r.prepareMedianMs / b.addMs),
          sec(r.prepareP90Ms),
          `${r.recycled}/${r.tasks}`,
          Number.isFinite(r.recycledMedianMs) ? sec(r.recycledMedianMs) : '-',
          Number.isFinite(r.recycledMedianMs) ? ratio(r.recycledMedianMs / b.addMs) : '-',
          String(r.peakCheckouts),
          gb(r.peakBytes),
          sec(r.removeMs),
          ratio(r.removeMs / b.removeMs),
          sec(r.endRemoveMs),
          gb(r.leftBytes),
        ]),
      },
    ],
    notes,
  };
}

function mkdtempSyncIn(dir: string): string {
  const path = join(dir, `taskloom-wtcost-${process.pid}-${Date.now()}`);
  mkdirSync(path, { recursive: true });
  return path;
}

if (require.main === module) {
  // --markdown: the section as bench/RESULTS.md has it (a run of only some sections leaves that file alone).
  void import('./report').then(async ({ renderMarkdown, renderText }) => {
    const section = await benchWorktreeCost((r) => process.stderr.write(`worktreeCost: ${JSON.stringify(r)}\n`));
    process.stdout.write(`${process.argv.includes('--markdown') ? renderMarkdown(section) : renderText(section)}\n`);
  });
}
