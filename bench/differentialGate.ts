import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_GATE_CONFIG } from '../src/engine/domain/runConfig';
import { makeTempRepo } from '../test/helpers/tempRepo';
import { ACTOR_DELAY_MS, measureBaselineRunCost, RUN_MODULES, RUN_PAIRS, RUN_TASKS, type BaselineRunCost } from './baselineRunCost';
import { generateLibrary, plantTasks, type PlantedTask } from './gateLibrary';
import { checkOutTask, GATE_COMMAND, timedGate, type TimedGate } from './gateRuns';
import type { Section } from './report';
import { median, ratio } from './stats';

const MODULES = 210;
const LAYERS = 6;
const TASKS = 20;
const RATIO_GOAL = 0.3;

interface TaskGates {
  task: PlantedTask;
  changed: string[];
  full: TimedGate;
  differential: TimedGate;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const moduleWords = (t: PlantedTask): string => `${t.broken.name} (layer ${t.broken.layer})${t.refactored ? ` + ${t.refactored.name} (layer ${t.refactored.layer}, refactor)` : ''}`;
/** Tests the full suite newly failed that the differential gate did not: regressions it let through. */
const missedBy = (g: TaskGates): string[] => g.full.newFailures.filter((file) => !g.differential.newFailures.includes(file));
/** Held at the task gate for the planted regression: failed, and for a test the regression breaks. */
const caught = (g: TaskGates): boolean => !g.differential.passed && g.differential.newFailures.some((file) => g.task.failingTests.includes(file));

/** Each task's gate twice in its own worktree, full suite and differential, taking turns at going first. */
async function measureTaskGates(): Promise<{ base: TimedGate; gates: TaskGates[] }> {
  const library = generateLibrary(MODULES, LAYERS);
  const repo = makeTempRepo({ files: library.files });
  const worktrees = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-gate-')));
  try {
    const base = await timedGate(repo.dir, { flakyReruns: 0, keepGoing: true });
    if (!base.passed) throw new Error(`the generated library fails its own gate on main: ${base.command.output.slice(-2000)}`);
    const judging = { flakyReruns: DEFAULT_GATE_CONFIG.flakyReruns, baseline: { commands: [base.command], advisory: [] } };
    const gates: TaskGates[] = [];
    for (const [i, task] of plantTasks(library, TASKS).entries()) {
      const { dir, changed } = checkOutTask(repo, worktrees, task);
      const full = () => timedGate(dir, judging);
      const differential = () => timedGate(dir, { ...judging, changed });
      if (i % 2 === 0) gates.push({ task, changed, full: await full(), differential: await differential() });
      else gates.push({ task, changed, differential: await differential(), full: await full() });
      process.stderr.write(`bench: 12. ${task.id}: full ${seconds(gates.at(-1)!.full.ms)}, differential ${seconds(gates.at(-1)!.differential.ms)}\n`);
    }
    return { base, gates };
  } finally {
    rmSync(worktrees, { recursive: true, force: true });
    repo.cleanup();
  }
}

/** Section 12: the differential gate against the full suite on the same tasks, and what the baseline adds to a run's wall time. */
export async function benchDifferentialGate(): Promise<Section> {
  const loadBefore = loadavg()[0]!;
  let loadPeak = loadBefore;
  const sampler = setInterval(() => (loadPeak = Math.max(loadPeak, loadavg()[0]!)), 5_000);
  const { base, gates } = await measureTaskGates();
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'taskloom-bench-baseline-')));
  let cost: BaselineRunCost;
  try {
    cost = await measureBaselineRunCost(work);
  } finally {
    clearInterval(sampler);
    rmSync(work, { recursive: true, force: true });
  }
  const fullMs = gates.reduce((sum, g) => sum + g.full.ms, 0);
  const differentialMs = gates.reduce((sum, g) => sum + g.differential.ms, 0);
  const totalRatio = differentialMs / fullMs;
  const caughtCount = gates.filter(caught).length;
  const missed = gates.filter((g) => missedBy(g).length > 0);
  const unexpected = gates.filter((g) => g.full.newFailures.join() !== [...g.task.failingTests].sort().join());
  const [off, on] = [median(cost.off), median(cost.on)];
  const added = on - off;
  const spread = Math.max(...[cost.off, cost.on].map((walls) => Math.max(...walls) - Math.min(...walls)));
  const wide = gates.filter((g) => g.differential.ran > base.ran / 3);
  const wideMs = wide.reduce((sum, g) => sum + g.differential.ms, 0);

  const notes = [
    `Differential / full gate time over the ${TASKS} tasks: ${ratio(totalRatio)} (${seconds(differentialMs)} / ${seconds(fullMs)}; median per task ${ratio(median(gates.map((g) => g.differential.ms / g.full.ms)))}); goal ≤ ${RATIO_GOAL}×: ${totalRatio <= RATIO_GOAL ? 'met' : 'MISSED'}.`,
    `Regressions caught at the task gate: ${caughtCount} / ${TASKS} (goal: all ${TASKS}${caughtCount === TASKS ? ', met' : ', MISSED'}).`,
    `${wide.length} task(s) change a module that more than a third of the tests reach (${wide.map((g) => g.task.id).join(', ')}): they take ${seconds(wideMs)} of the differential gates' ${seconds(differentialMs)}; there the differential gate must run most of what the full suite runs.`,
    missed.length === 0
      ? 'Missed regressions (failing in the full suite, not in the differential gate): 0 (goal 0, met).'
      : `Missed regressions: ${missed.length} task(s) (goal 0, MISSED, a bug of the selection): ${missed.map((g) => `${g.task.id} (${g.changed.join(', ')}: ${missedBy(g).join(', ')})`).join('; ')}.`,
    `Baseline: a run with it on took ${seconds(on)} against ${seconds(off)} with \`--no-baseline\` (medians of ${RUN_PAIRS}), ${seconds(added)} more, ${ratio(added / cost.gateMs)} of one full gate run (${seconds(cost.gateMs)}); goal ≤ 1 gate run: ${added <= cost.gateMs ? 'met' : 'MISSED'}. ` +
      `Measured directly, the first task gate, ready to run, waited ${seconds(median(cost.waitedMs))} (median) for the baseline (which took ${cost.baselineGateMs.map(seconds).join(', ')} beside actors of ${seconds(ACTOR_DELAY_MS)}): ${ratio(median(cost.waitedMs) / cost.gateMs)} of a gate run. ${spread > Math.abs(added) ? 'Whole runs\' wall times on this shared machine vary by more than the difference (all in the table).' : `The runs of each arm agree within ${seconds(spread)}.`}`,
    'Every differential gate also runs its selection: the import graph of the checkout, read whole (section 11), inside the time shown. The full suite is the same call with no `changed`: it reads no graph. A regression\'s newly failing tests are rerun alone once (the default `flakyReruns: 1`) in both gates, so a regression that breaks many tests costs both more.',
    `Gates run through \`launchUnconfined\`: what confinement adds to a gate is section 10's figure. The whole runs use sandbox mode off for the same reason. The 1-minute load average was ${loadBefore.toFixed(2)} at the start of the section, ${loadavg()[0]!.toFixed(2)} at its end and up to ${loadPeak.toFixed(2)} between, on ${availableParallelism()} cores${loadPeak > availableParallelism() ? ': other work shared the machine, and the full suite, the longer of the two gates, is the more exposed to it' : ''}.`,
  ];
  if (unexpected.length) notes.push(`The full suite's new failures differ from the library's own arithmetic for ${unexpected.map((g) => g.task.id).join(', ')}: a generator bug, not the gate's.`);

  return {
    title: '12. The differential gate',
    method:
      `A generated ES-module library (package.json \`"type": "module"\`, gate \`${GATE_COMMAND}\` → \`node --test\`) of ${MODULES} modules in ${LAYERS} layers: 4 shared utilities at the bottom, then layers growing towards the top, each module importing 1–3 of the layer below (a quarter of those above the first layer also a utility), each with its own node:test test of its value at 0; committed in a real git repository (${base.ran} tests; one full gate on main: ${seconds(base.ms)}). ` +
      `${TASKS} tasks, each a real commit on its own branch in its own worktree off main, change one module (every other task a second one too, refactored without a change of behaviour) with a planted regression: an off-by-one that its own test sees, that only its importers' tests see, or that only tests two layers up see (in turn; modules are drawn by hash, and one that cannot show the turn's reach is passed over). ` +
      `For each task, in this process, \`runJudgedGate\` runs twice on the task's worktree, judged against the base's result: the full suite (no \`changed\`) and the differential gate (\`changed\` = \`git diff --name-only main HEAD\`); they take turns at going first. ` +
      `Then whole runs through the engine with the scripted agent on a ${RUN_MODULES}-module library of the same shape: ${RUN_TASKS} independent tasks whose actors refactor one module each after ${seconds(ACTOR_DELAY_MS)}, maxParallel ${cost.maxParallel}, default gate settings but the baseline, ${RUN_PAIRS} pairs taking turns (baseline off, on; then on, off; …), a fresh repository per run.`,
    tables: [
      {
        headers: ['task', 'changed', 'regression seen by', 'failing tests', 'tests run: full / differential', 'full', 'differential', 'differential / full', 'caught at task gate', 'missed'],
        numeric: [3, 5, 6, 7, 9],
        rows: gates.map((g) => [
          g.task.id,
          moduleWords(g.task),
          g.task.reach,
          String(g.task.failingTests.length),
          `${g.full.ran} / ${g.differential.ran}`,
          seconds(g.full.ms),
          seconds(g.differential.ms),
          ratio(g.differential.ms / g.full.ms),
          caught(g) ? 'yes' : 'NO',
          String(missedBy(g).length),
        ]),
      },
      {
        headers: ['whole run', `wall (${RUN_PAIRS} runs)`, 'median'],
        numeric: [2],
        rows: [
          ['`--no-baseline`', cost.off.map(seconds).join(', '), seconds(off)],
          ['baseline on', cost.on.map(seconds).join(', '), seconds(on)],
          ['difference', '', seconds(added)],
          [`one full gate run (${RUN_MODULES} modules, outside a run)`, cost.gates.map(seconds).join(', '), seconds(cost.gateMs)],
          ['difference / gate run', '', ratio(added / cost.gateMs)],
          ['first task gate waited for the baseline', cost.waitedMs.map(seconds).join(', '), seconds(median(cost.waitedMs))],
          ['wait / gate run', '', ratio(median(cost.waitedMs) / cost.gateMs)],
        ],
      },
    ],
    notes,
  };
}
