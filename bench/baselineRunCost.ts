import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan } from '../src/engine/domain/plan';
import { DEFAULT_GATE_CONFIG, DEFAULT_RUN_CONFIG, type RunConfig } from '../src/engine/domain/runConfig';
import { DEFAULT_SANDBOX_SETTINGS } from '../src/engine/domain/sandboxSettings';
import { TaskloomEngine } from '../src/engine/run/engine';
import { makeTempRepo } from '../test/helpers/tempRepo';
import { generateLibrary, refactorOf } from './gateLibrary';
import { GATE_COMMAND, timedGate } from './gateRuns';
import { median } from './stats';

export const RUN_MODULES = 60;
export const RUN_TASKS = 4;
export const ACTOR_DELAY_MS = 3_000;
/** Runs with the baseline off and on, taking turns (the order flips each pair). */
export const RUN_PAIRS = 3;
const LAYERS = 6;

export interface BaselineRunCost {
  off: number[];
  on: number[];
  /** One full gate of the smaller library's base, outside any run, after each pair. */
  gates: number[];
  gateMs: number;
  /** The baseline's own gate time in each run with it on, as its baseline_result recorded. */
  baselineGateMs: number[];
  /** In each run with it on: how long the first task gate, ready to run, waited for the baseline (0 when it was done first). */
  waitedMs: number[];
  maxParallel: number;
}

/**
 * Whole runs through the engine (open, create, approve, drive to a merged integration branch,
 * close) with the scripted agent (a real process per call): RUN_TASKS independent tasks, each
 * actor refactoring one module of a RUN_MODULES-module library after ACTOR_DELAY_MS, critics
 * green at once, gate `npm test`, sandbox off; once with the baseline on and once off, in a fresh
 * repository each time (so no run is served an earlier run's baseline).
 */
export async function measureBaselineRunCost(work: string): Promise<BaselineRunCost> {
  const library = generateLibrary(RUN_MODULES, LAYERS);
  const changed = Array.from({ length: RUN_TASKS }, (_, i) => library.modules[Math.floor(((i + 0.5) * RUN_MODULES) / RUN_TASKS)]!);
  const plan: Plan = {
    goal: `rework ${RUN_TASKS} modules of the layered library`,
    tasks: changed.map((m, i) => ({ id: `t${i}`, title: `Rework ${m.name}`, description: `Refactor ${m.path} without changing what it returns.`, acceptance: [], dependsOn: [] })),
  };
  const scenarioPath = join(work, 'baseline-scenario.json');
  const green = { verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 };
  const tasks = Object.fromEntries(changed.map((m, i) => [`t${i}`, { actor: [{ write: refactorOf(library, m), delayMs: ACTOR_DELAY_MS }], critic: [green] }]));
  writeFileSync(scenarioPath, JSON.stringify({ tasks }));

  const result: BaselineRunCost = { off: [], on: [], gates: [], gateMs: 0, baselineGateMs: [], waitedMs: [], maxParallel: DEFAULT_RUN_CONFIG.maxParallel };
  for (let pair = 0; pair < RUN_PAIRS; pair++) {
    for (const baseline of pair % 2 ? [true, false] : [false, true]) {
      const run = await runOnce(library.files, plan, scenarioPath, baseline);
      result[baseline ? 'on' : 'off'].push(run.wall);
      if (run.baseline) result.baselineGateMs.push(run.baseline.gateMs);
      if (run.baseline) result.waitedMs.push(run.baseline.waitedMs);
    }
    const repo = makeTempRepo({ files: library.files });
    try {
      result.gates.push((await timedGate(repo.dir, { flakyReruns: 0 })).ms);
    } finally {
      repo.cleanup();
    }
  }
  result.gateMs = median(result.gates);
  return result;
}

interface RunTimes {
  wall: number;
  baseline?: { gateMs: number; waitedMs: number };
}

async function runOnce(files: Record<string, string>, plan: Plan, scriptPath: string, baseline: boolean): Promise<RunTimes> {
  const repo = makeTempRepo({ files });
  try {
    const config: RunConfig = {
      ...DEFAULT_RUN_CONFIG,
      gateCommands: [GATE_COMMAND],
      agent: { kind: 'scripted', scriptPath },
      sandbox: { ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' },
      gate: { ...DEFAULT_GATE_CONFIG, baseline },
    };
    const started = performance.now();
    const engine = await TaskloomEngine.open(repo.dir, { command: 'bench' });
    let outcome: { status: string; merged: number; summary: string; baseline?: RunTimes['baseline'] };
    try {
      const session = engine.createRun(plan, config);
      const at: { committed?: number; baseline?: number } = {};
      session.onEvent((event) => {
        if (event.type === 'work_committed') at.committed ??= performance.now();
        if (event.type === 'baseline_result') at.baseline = performance.now();
      });
      engine.approvePlan(session, 'autopilot');
      const status = await engine.drive(session, new AbortController().signal);
      const base = session.state.baseline;
      outcome = {
        status,
        merged: session.state.integration.merged.length,
        summary: session.state.finishedSummary ?? '',
        ...(base && at.baseline !== undefined && at.committed !== undefined
          ? { baseline: { gateMs: base.commands.reduce((sum, c) => sum + c.durationMs, 0), waitedMs: Math.max(0, at.baseline - at.committed) } }
          : {}),
      };
    } finally {
      engine.close();
    }
    const wall = performance.now() - started;
    if (outcome.status !== 'completed' || outcome.merged !== plan.tasks.length) {
      throw new Error(`baseline ${baseline ? 'on' : 'off'}: the run ended ${outcome.status} with ${outcome.merged}/${plan.tasks.length} merged: ${outcome.summary}`);
    }
    if (baseline && !outcome.baseline) throw new Error('the run with the baseline on has no baseline');
    return { wall, ...(outcome.baseline ? { baseline: outcome.baseline } : {}) };
  } finally {
    repo.cleanup();
  }
}
