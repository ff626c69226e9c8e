// What confinement (issue 20) costs, side by side with unconfined in one run: a trivial process
// start, a typical gate run and a whole 20-task run. `BENCH_SECTIONS=10 npm run bench` for this alone.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_SETTINGS } from '../src/engine/domain/sandboxSettings';
import { runGate } from '../src/engine/gate/runGate';
import { launchUnconfined, type LaunchOptions, type ProcessLauncher } from '../src/engine/process/launcher';
import type { ProcessResult } from '../src/engine/process/processGroup';
import { probeBubblewrap } from '../src/engine/sandbox/bubblewrap';
import { bubblewrapArgs } from '../src/engine/sandbox/bubblewrapArgs';
import { pathKind, policyFor } from '../src/engine/sandbox/policyFor';
import { taskLauncher, type SandboxContext, type TaskProcessRequest } from '../src/engine/sandbox/taskLauncher';
import { makeTempRepo, type TempRepo } from '../test/helpers/tempRepo';
import type { Section } from './report';
import { runScaleOnce, scalePlan, type ScaleResult } from './runScale';
import { mean, median, ms, percentile, ratio } from './stats';

const START_ROUNDS = 60;
const GATE_ROUNDS = 10;
const RUN_PAIRS = 4;
const RUN_TASKS = 20;
const START_GOAL_MS = 30;
const GATE_GOAL = 1.05;
/** A start this much over its baseline's median is counted as slow. */
const SLOW_MS = 20;

const TITLE = '10. Confinement cost';
const TRUE = '/bin/true';
const NODE_TEST_FILES = 4;

/** A small Node project whose `npm test` is `node --test` over a few files of a few tests each. */
function gateProjectFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify({ name: 'gate-bench', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
    'src/text.js': [
      "exports.slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');",
      'exports.words = (s) => s.split(/\\s+/).filter(Boolean).length;',
      '',
    ].join('\n'),
  };
  for (let f = 0; f < NODE_TEST_FILES; f++) {
    const cases = Array.from({ length: 5 }, (_, i) =>
      [
        `test('case ${f}.${i}', () => {`,
        `  const input = 'Hello, World ${f} ${i} ' + 'x'.repeat(${100 * (i + 1)});`,
        `  assert.equal(slug(input).startsWith('hello-world-${f}-${i}'), true);`,
        `  assert.equal(words(input), 5);`,
        `  assert.deepEqual(JSON.parse(JSON.stringify({ n: ${i} })), { n: ${i} });`,
        '});',
      ].join('\n'),
    );
    files[`test/part${f}.test.js`] = [
      "const test = require('node:test');",
      "const assert = require('node:assert/strict');",
      "const { slug, words } = require('../src/text.js');",
      ...cases,
      '',
    ].join('\n');
  }
  return files;
}

/** The gate project committed in a repository, checked out in a worktree as a task's is. */
interface TaskCheckout {
  repo: TempRepo;
  dir: string;
  cleanup(): void;
}

function makeTaskCheckout(): TaskCheckout {
  const repo = makeTempRepo({ files: gateProjectFiles() });
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-task-')));
  repo.git(['worktree', 'add', '-q', '-b', 'task', dir]);
  return {
    repo,
    dir,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      repo.cleanup();
    },
  };
}

const contexts = (): Record<'off' | 'on', SandboxContext> => ({
  off: { confinement: { confined: false, mode: 'off', reason: 'bench baseline' }, settings: DEFAULT_SANDBOX_SETTINGS },
  on: { confinement: { confined: true, mode: 'on', mechanism: 'bubblewrap' }, settings: DEFAULT_SANDBOX_SETTINGS },
});

/** One way of starting a process, timed end to end as its caller waits for it; throws when it did not succeed. */
interface Variant<K extends string> {
  key: K;
  label: string;
  /** The variant this one is set against. */
  baseline?: K;
  start: () => Promise<void>;
}

function succeeded(label: string, result: ProcessResult): void {
  if (result.exitCode === 0 && !result.sandboxFailure) return;
  throw new Error(`${label}: exit ${result.exitCode}${result.sandboxFailure ? `, ${result.sandboxFailure}` : ''}: ${result.output.slice(-2000)}`);
}

/** Each variant's times, in the order the variants were given. */
interface Measured<K extends string> {
  variants: Array<Variant<K>>;
  times: Record<K, number[]>;
}

/** Runs every variant once per round, in an order that turns each round, so drift hits all alike. */
async function interleaved<K extends string>(variants: Array<Variant<K>>, rounds: number): Promise<Measured<K>> {
  const times = Object.fromEntries(variants.map((v) => [v.key, [] as number[]])) as Record<K, number[]>;
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + Math.max(0, round)) % variants.length]!;
      const t0 = performance.now();
      await variant.start();
      const elapsed = performance.now() - t0;
      if (round >= 0) times[variant.key].push(elapsed); // round -1 warms caches and the bubblewrap probe
    }
  }
  return { variants, times };
}

/** The median of per-round differences: what b costs over a, with the drift both saw cancelled. */
const pairedOverhead = (a: number[], b: number[]): number => median(a.map((t, i) => b[i]! - t));

const listenLoopback = (): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer((socket) => socket.end());
    server.listen(0, '127.0.0.1', () => resolve(server));
  });

type StartKey = 'gateOff' | 'gateOn' | 'agentOff' | 'agentOn' | 'spawn' | 'bwrapUser' | 'bwrapPid' | 'bwrapAll' | 'bwrapPolicy' | 'node';

/**
 * Trivial starts through taskLauncher, confined and not, then the steps of a confined start on their
 * own: a bare spawn, bubblewrap with a user namespace, with a PID namespace too, with every
 * namespace, with the gate policy's mounts, and a bare Node start (the floor of the relay an agent
 * with hosts gets).
 */
async function measureStarts(bwrap: string, checkout: string, loopbackPort: number): Promise<Measured<StartKey> & { mounts: number }> {
  const ctx = contexts();
  const gate: TaskProcessRequest = { role: 'gate', checkout, writes: true };
  const actor: TaskProcessRequest = { role: 'actor', checkout, writes: true, agent: 'scripted' };
  const trivial: LaunchOptions = { command: TRUE, args: [], cwd: checkout };
  const agentStart: LaunchOptions = { ...trivial, needs: { hosts: [`127.0.0.1:${loopbackPort}`] } };

  const scratch = mkdtempSync(join(tmpdir(), 'taskloom-bench-scratch-'));
  const policy = policyFor(DEFAULT_SANDBOX_SETTINGS, gate, { scratch, home: process.env.HOME });
  const policyArgs = bubblewrapArgs(policy, pathKind).filter(
    (arg, i, all) => arg !== '--json-status-fd' && all[i - 1] !== '--json-status-fd',
  );
  const mounts = policyArgs.filter((arg) => /^--(ro-bind|bind|tmpfs|symlink|proc|dev)$/.test(arg)).length;
  const root = ['--die-with-parent', '--ro-bind', '/', '/'];

  const variant = (key: StartKey, label: string, baseline: StartKey | undefined, launch: ProcessLauncher, options: LaunchOptions): Variant<StartKey> => ({
    key,
    label,
    ...(baseline ? { baseline } : {}),
    start: async () => succeeded(label, await launch(options)),
  });
  const direct = (key: StartKey, label: string, baseline: StartKey, command: string, args: string[]) =>
    variant(key, label, baseline, launchUnconfined, { command, args, cwd: checkout });

  const variants = [
    variant('gateOff', 'gate, unconfined (taskLauncher, mode off)', 'spawn', taskLauncher(ctx.off, gate), trivial),
    variant('gateOn', 'gate, confined (taskLauncher)', 'gateOff', taskLauncher(ctx.on, gate), trivial),
    variant('agentOff', 'agent with 1 loopback host, unconfined', 'spawn', taskLauncher(ctx.off, actor), agentStart),
    variant('agentOn', 'agent with 1 loopback host, confined (proxy + relay)', 'agentOff', taskLauncher(ctx.on, actor), agentStart),
    variant('spawn', 'spawn alone', undefined, launchUnconfined, trivial),
    direct('bwrapUser', 'bwrap: user namespace, / read-only', 'spawn', bwrap, ['--unshare-user', ...root, TRUE]),
    direct('bwrapPid', 'bwrap: user + PID namespaces, / read-only', 'bwrapUser', bwrap, ['--unshare-user', '--unshare-pid', ...root, TRUE]),
    direct('bwrapAll', 'bwrap: every namespace, / read-only, /proc, /dev', 'bwrapPid', bwrap, ['--unshare-all', ...root, '--proc', '/proc', '--dev', '/dev', TRUE]),
    direct('bwrapPolicy', `bwrap: the gate policy's arguments (${mounts} mounts)`, 'bwrapAll', bwrap, [...policyArgs, TRUE]),
    direct('node', "`node -e 0` (a Node start: the relay's floor)", 'spawn', process.execPath, ['-e', '0']),
  ];
  try {
    return { ...(await interleaved(variants, START_ROUNDS)), mounts };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

type GateKey = 'npmOff' | 'npmOn' | 'npmQuietOff' | 'npmQuietOn' | 'nodeOff' | 'nodeOn';

/**
 * The gate project's tests through runGate, unconfined and confined: `npm test`, the same without
 * npm's update check (a confined HOME is empty each time, so npm checks for a newer npm on every
 * start), and `node --test` alone.
 */
async function measureGates(checkout: string): Promise<Measured<GateKey>> {
  const ctx = contexts();
  const gateVariant = (key: GateKey, command: string, mode: 'off' | 'on', baseline?: GateKey): Variant<GateKey> => ({
    key,
    label: `\`${command}\`, ${mode === 'on' ? 'confined' : 'unconfined'}`,
    ...(baseline ? { baseline } : {}),
    start: async () => {
      const gate = await runGate({
        commands: [command],
        launch: taskLauncher(ctx[mode], { role: 'gate', checkout, writes: true }),
        cwd: checkout,
        timeoutMs: 300_000,
        idleTimeoutMs: 120_000,
        signal: new AbortController().signal,
      });
      if (!gate.passed) throw new Error(`gate \`${command}\` (${mode}) failed: ${gate.sandboxFailure ?? gate.commands.map((r) => r.output).join('\n')}`);
    },
  });
  const quiet = 'npm test --no-update-notifier';
  const variants = [
    gateVariant('npmOff', 'npm test', 'off'),
    gateVariant('npmOn', 'npm test', 'on', 'npmOff'),
    gateVariant('npmQuietOff', quiet, 'off'),
    gateVariant('npmQuietOn', quiet, 'on', 'npmQuietOff'),
    gateVariant('nodeOff', 'node --test', 'off'),
    gateVariant('nodeOn', 'node --test', 'on', 'nodeOff'),
  ];
  return interleaved(variants, GATE_ROUNDS);
}

/** Whole runs by sandbox mode, each with the machine's 1-minute load average when it started. */
type RunPairs = Record<'on' | 'off', Array<ScaleResult & { load: number }>>;

/** Whole 20-task runs with the scripted agent (a real process per call), confined and `--sandbox off`, taking turns. */
async function measureRuns(work: string): Promise<RunPairs> {
  const scenarioPath = join(work, 'scenario.json');
  const tasks = Object.fromEntries(
    scalePlan('independent', RUN_TASKS).tasks.map((t) => [t.id, { actor: [{ write: { [`out-${t.id}.txt`]: `work of ${t.id}\n` } }] }]),
  );
  writeFileSync(scenarioPath, JSON.stringify({ tasks }));
  const results: RunPairs = { on: [], off: [] };
  for (let pair = 0; pair < RUN_PAIRS; pair++) {
    const order = pair % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    for (const sandbox of order) {
      const load = loadavg()[0]!;
      results[sandbox].push({ ...(await runScaleOnce('independent', RUN_TASKS, { scenarioPath, sandbox })), load });
    }
  }
  return results;
}

export async function benchSandboxCost(): Promise<Section> {
  const probe = await probeBubblewrap();
  if (!probe.usable) return { title: TITLE, method: 'Not measured.', tables: [], notes: [`bubblewrap cannot confine here: ${probe.reason}`] };
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-sandbox-')));
  const checkout = makeTaskCheckout();
  const server = await listenLoopback();
  try {
    const starts = await measureStarts(probe.path, checkout.dir, (server.address() as AddressInfo).port);
    const gates = await measureGates(checkout.dir);
    const runs = await measureRuns(work);
    return report(probe.version, starts, gates, runs);
  } finally {
    server.close();
    checkout.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

const ratioOfMedians = (t: number[], b: number[]): number => median(t) / median(b);
const medianRatio = (t: number[], b: number[]): number => median(t.map((x, i) => x / b[i]!));

/** Each variant's median, mean and p90, and against its baseline the paired overhead and the ratio. */
function comparisonRows<K extends string>({ variants, times }: Measured<K>, ratioOf: (t: number[], b: number[]) => number): string[][] {
  return variants.map((v) => {
    const t = times[v.key];
    const b = v.baseline;
    const labelOf = (key: K) => variants.find((x) => x.key === key)!.label;
    const against = b === undefined ? ['', '', ''] : [labelOf(b), ms(pairedOverhead(times[b], t)), ratio(ratioOf(t, times[b]), 3)];
    return [v.label, ms(median(t)), ms(mean(t)), ms(percentile(t, 90)), ...against];
  });
}

/** How many of `t` took more than `margin` ms over the median of `baseline`: the slow starts. */
const slowCount = (t: number[], baseline: number[], margin: number): number => t.filter((x) => x > median(baseline) + margin).length;

function report(version: string, starts: Measured<StartKey> & { mounts: number }, gates: Measured<GateKey>, runs: RunPairs): Section {
  const t = starts.times;
  const step = (from: StartKey, to: StartKey) => ms(pairedOverhead(t[from], t[to]));
  const gateOverhead = pairedOverhead(t.gateOff, t.gateOn);
  const agentOverhead = pairedOverhead(t.agentOff, t.agentOn);
  const g = gates.times;
  const npmRatio = medianRatio(g.npmOn, g.npmOff);
  const slow = (key: StartKey, baseline: StartKey) => `${slowCount(t[key], t[baseline], SLOW_MS)} of ${START_ROUNDS}`;

  const perTask = (r: ScaleResult) => r.wall / r.merged;
  const pairRatios = runs.on.map((r, i) => perTask(r) / perTask(runs.off[i]!));
  const runRatio = median(pairRatios);
  const runRows = (['off', 'on'] as const).map((mode) => [
    mode === 'on' ? 'confined (mode on)' : '`--sandbox off`',
    runs[mode].map((r) => `${(r.wall / 1000).toFixed(1)} s`).join(', '),
    ms(median(runs[mode].map(perTask))),
    ms(median(runs[mode].map((r) => (1000 * r.cpu.self) / r.merged))),
    runs[mode].map((r) => r.load.toFixed(1)).join(', '),
  ]);

  const verdict = (ok: boolean) => (ok ? 'meets the goal' : 'MISSES the goal');
  const notes = [
    `Per start: a confined gate start costs ${ms(gateOverhead)} more than an unconfined one (goal ≤ ${START_GOAL_MS} ms: ${verdict(gateOverhead <= START_GOAL_MS)}); ` +
      `an agent start with one allowed host costs ${ms(agentOverhead)} more (${verdict(agentOverhead <= START_GOAL_MS)}).`,
    `Where a confined gate start's time goes: bubblewrap with a user namespace ${step('spawn', 'bwrapUser')} over a bare spawn; a PID namespace ${step('bwrapUser', 'bwrapPid')} more; ` +
      `the other namespaces, /proc and /dev ${step('bwrapPid', 'bwrapAll')} more; the policy's ${starts.mounts} mounts ${step('bwrapAll', 'bwrapPolicy')} more; ` +
      `the launcher's own work around it (policy, scratch TMPDIR, the \`sh\` and \`env\` execs that set the stop signals, status pipe, cleanup) ${step('bwrapPolicy', 'gateOn')} more.`,
    `Some starts are slow: over ${SLOW_MS} ms beyond their baseline's median were ${slow('gateOn', 'gateOff')} confined gate starts, ${slow('bwrapPid', 'spawn')} with only user + PID namespaces, ` +
      `${slow('bwrapUser', 'spawn')} with only a user namespace: the slow mode comes with the PID namespace, and decides the median when it is frequent (the mean column shows it).`,
    `An agent with a host also gets the egress proxy outside and the relay, a Node process, inside: its confined start is ${step('gateOn', 'agentOn')} over a confined gate start, ` +
      `of which a Node start is about ${step('spawn', 'node')} (\`node -e 0\` over a bare spawn).`,
    `A typical gate (\`npm test\`, ${NODE_TEST_FILES} test files): confined / unconfined = ${ratio(npmRatio, 3)} (goal ≤ ${GATE_GOAL}×: ${verdict(npmRatio <= GATE_GOAL)}). ` +
      `Without npm's update check it is ${ratio(medianRatio(g.npmQuietOn, g.npmQuietOff), 3)}, and \`node --test\` alone ${ratio(medianRatio(g.nodeOn, g.nodeOff), 3)}: ` +
      'the home folder inside is empty at every start, so npm would look for a newer npm (and fail: no network) each time; the launcher turns that check off in every sandbox (npm_config_update_notifier=false).',
    `A whole ${RUN_TASKS}-task run: confined / off wall per task = ${ratio(runRatio, 3)} (pairs: ${pairRatios.map((r) => ratio(r, 3)).join(', ')}). ` +
      "The CPU of the processes themselves is not shown: bubblewrap's PID namespace keeps it out of this process's reaped-children count.",
  ];
  return {
    title: TITLE,
    method:
      `The same processes through \`taskLauncher\` (src/engine/sandbox/taskLauncher.ts) confined by ${version} and unconfined (its mode-off path: the environment allow-list, then a plain spawn), ` +
      'each timed as its caller waits for it (policy, scratch folder, proxy and their cleanup included), in a git worktree of a small repository. ' +
      `Starts: \`${TRUE}\` as a gate (no network) and as an agent allowed one host on 127.0.0.1 (so the egress proxy and the relay start), ${START_ROUNDS} rounds; ` +
      'the rows below them start the steps of a confined start on their own, to show what each adds. ' +
      `Gate: \`runGate\` on a package.json project whose \`npm test\` is \`node --test\` over ${NODE_TEST_FILES} files of 5 tests, ${GATE_ROUNDS} rounds. ` +
      'Every round runs each variant once, in an order that turns from round to round, after one discarded warm-up round; overheads are medians of per-round differences, so the drift of a shared machine cancels. ' +
      `Whole runs: ${RUN_PAIRS} pairs of ${RUN_TASKS} independent tasks (section 8's machinery: \`TaskloomEngine\` to a merged integration branch, maxParallel 4, gate \`true\`) with the scripted agent, a real Node process per actor and critic call, ` +
      "confined (`sandbox.mode` on) and off, taking turns; the ratio is the median of the pairs' ratios.",
    tables: [
      { headers: ['trivial start', 'median', 'mean', 'p90', 'set against', 'overhead', '× (medians)'], numeric: [1, 2, 3, 5, 6], rows: comparisonRows(starts, ratioOfMedians) },
      { headers: ['gate', 'median', 'mean', 'p90', 'set against', 'overhead', '× (per round)'], numeric: [1, 2, 3, 5, 6], rows: comparisonRows(gates, medianRatio) },
      { headers: [`${RUN_TASKS}-task run`, 'wall (each run)', 'wall / task', 'engine CPU / task', 'load average at each start'], numeric: [2, 3], rows: runRows },
    ],
    notes,
  };
}
