import type { TaskState } from '../domain/taskStates';
import { remainingChainLengths } from '../plan/planGraph';
import { OverlapIndex, predictOverlaps } from './overlap';
import { pickTasksToStart, type SchedulableTask } from './scheduler';
import { counted } from '../text/counted';

/** A task for simulation: how long it runs is known up front. */
export interface SimTask {
  id: string;
  dependsOn: readonly string[];
  duration: number;
}

/**
 * The time at which the last task finishes when every task always succeeds and the real
 * scheduler (pickTasksToStart, chains weighted by duration) decides what starts when.
 * Used to measure the scheduling policy, not to predict wall time. `priority` replaces the
 * chain lengths (an empty map starts ready tasks in plan order, for comparison).
 */
export function simulateMakespan(
  tasks: readonly SimTask[],
  maxParallel: number,
  priority?: ReadonlyMap<string, number>,
): number {
  for (const t of tasks) {
    if (!(t.duration >= 0)) throw new RangeError(`task "${t.id}" has an invalid duration ${t.duration}`);
  }
  const chain = priority ?? remainingChainLengths({ tasks }, new Map(tasks.map((t) => [t.id, t.duration])));
  const state = new Map<string, TaskState>(tasks.map((t) => [t.id, 'PENDING']));
  const finishAt = new Map<string, number>();
  const view = (): SchedulableTask[] => tasks.map((t) => ({ id: t.id, dependsOn: t.dependsOn, state: state.get(t.id)! }));
  let now = 0;
  let done = 0;

  while (done < tasks.length) {
    for (const id of pickTasksToStart(view(), maxParallel, chain)) {
      state.set(id, 'BUILDING');
      finishAt.set(id, now + tasks.find((t) => t.id === id)!.duration);
    }
    if (finishAt.size === 0) {
      throw new Error(`simulation stuck at t=${now}: ${counted(tasks.length - done, 'task')} can never start (cycle or unknown dependency)`);
    }
    now = Math.min(...finishAt.values());
    // Everything finishing at the same instant completes together before the next pick.
    for (const [id, at] of [...finishAt]) {
      if (at > now) continue;
      finishAt.delete(id);
      state.set(id, 'MERGED');
      done++;
    }
  }
  return now;
}

/** Longest duration-weighted dependency chain: no schedule can beat it. */
export function criticalPathLength(tasks: readonly SimTask[]): number {
  const chain = remainingChainLengths({ tasks }, new Map(tasks.map((t) => [t.id, t.duration])));
  return Math.max(0, ...chain.values());
}

/** max(critical path, total work / parallelism): no schedule on `maxParallel` workers finishes sooner. */
export function makespanLowerBound(tasks: readonly SimTask[], maxParallel: number): number {
  const work = tasks.reduce((sum, t) => sum + t.duration, 0);
  return Math.max(criticalPathLength(tasks), work / maxParallel);
}

export interface RandomDagOptions {
  /** Most dependencies a task gets (default 3). */
  maxDependencies?: number;
  /** Durations are whole numbers from 1 to this (default 10). */
  maxDuration?: number;
}

/**
 * A reproducible random plan of `n` tasks, listed in a valid order (every dependency comes
 * earlier), as a planner would write it. Same seed, same DAG, on every machine.
 */
export function randomDag(seed: number, n: number, options: RandomDagOptions = {}): SimTask[] {
  const { maxDependencies = 3, maxDuration = 10 } = options;
  const random = mulberry32(seed);
  const pick = (below: number): number => Math.floor(random() * below);
  const width = String(Math.max(0, n - 1)).length;
  const ids = Array.from({ length: n }, (_, i) => `t${String(i).padStart(width, '0')}`);
  return ids.map((id, i) => {
    const count = pick(Math.min(maxDependencies, i) + 1);
    const deps = new Set<string>();
    while (deps.size < count) deps.add(ids[pick(i)]!);
    return { id, dependsOn: [...deps], duration: 1 + pick(maxDuration) };
  });
}

/** Small, fast, well-distributed 32-bit PRNG; good enough for test data, not for secrets. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A simulated task that touches these files (its files hints are exactly what it changes). */
export interface SimTaskWithFiles extends SimTask {
  files: readonly string[];
}

export interface OverlapSimulation {
  makespan: number;
  /** Pairs of tasks that touch a common file and that no dependency orders. */
  overlappingPairs: number;
  /** Of those, pairs that met as a merge conflict: one merged while the other, started before, was still on its way. */
  conflictingPairs: number;
  /** Resolutions the conflicts took (a task can meet several merged tasks at once, and conflict again). */
  resolutions: number;
}

/**
 * The run's schedule with overlapping tasks, as the engine schedules it (pickTasksToStart, and in
 * 'serialize' mode the OverlapIndex waits), a task merging the moment it finishes unless a task
 * sharing a file was merged since it started: then it resolves (half its duration, in a slot, from
 * the integration branch as it is then) before it merges.
 */
export function simulateOverlaps(tasks: readonly SimTaskWithFiles[], maxParallel: number, mode: 'serialize' | 'off'): OverlapSimulation {
  const chain = remainingChainLengths({ tasks }, new Map(tasks.map((t) => [t.id, t.duration])));
  const pairs = predictOverlaps(tasks, []);
  const index = new OverlapIndex(tasks, pairs);
  const partners = new Map<string, string[]>();
  for (const { first, second } of pairs) {
    partners.set(first, [...(partners.get(first) ?? []), second]);
    partners.set(second, [...(partners.get(second) ?? []), first]);
  }
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const state = new Map<string, TaskState>(tasks.map((t) => [t.id, 'PENDING']));
  const baseAt = new Map<string, number>();
  const mergedAt = new Map<string, number>();
  const finishAt = new Map<string, number>();
  const conflicted = new Set<string>();
  let resolutions = 0;
  const view = () => tasks.map((t) => ({ id: t.id, dependsOn: t.dependsOn, state: state.get(t.id)!, changedFiles: [] as string[] }));
  let now = 0;
  while (mergedAt.size < tasks.length) {
    const waiting = mode === 'serialize' ? new Set(index.waits(view()).keys()) : new Set<string>();
    for (const id of pickTasksToStart(view(), maxParallel, chain, waiting)) {
      state.set(id, 'BUILDING');
      baseAt.set(id, now);
      finishAt.set(id, now + byId.get(id)!.duration);
    }
    if (finishAt.size === 0) throw new Error(`simulation stuck at t=${now}`);
    now = Math.min(...finishAt.values());
    // The queue merges what finished at this instant one after the other, in plan order.
    for (const [id, at] of [...finishAt].sort(([a], [b]) => a.localeCompare(b))) {
      if (at > now) continue;
      finishAt.delete(id);
      // Merged after this task took its base (starts come after the merges of their instant).
      const met = (partners.get(id) ?? []).filter((other) => mergedAt.has(other) && mergedAt.get(other)! > baseAt.get(id)!);
      if (met.length) {
        met.forEach((other) => conflicted.add([id, other].sort().join('+')));
        resolutions += 1;
        state.set(id, 'RESOLVING');
        baseAt.set(id, now);
        finishAt.set(id, now + Math.ceil(byId.get(id)!.duration / 2));
        continue;
      }
      state.set(id, 'MERGED');
      mergedAt.set(id, now);
    }
  }
  return { makespan: now, overlappingPairs: pairs.length, conflictingPairs: conflicted.size, resolutions };
}

/**
 * `randomDag` with files: each task touches one to three files of `fileCount`; with `hotShare`, that
 * share of the picks goes to three "hot" files (a package.json, an index, a README in a real repository).
 */
export function randomDagWithFiles(seed: number, n: number, fileCount = 30, hotShare = 0, options: RandomDagOptions = {}): SimTaskWithFiles[] {
  const random = mulberry32(seed * 7919 + 1);
  const hot = Math.min(3, fileCount);
  const file = (): string => `f${random() < hotShare ? Math.floor(random() * hot) : hot + Math.floor(random() * (fileCount - hot))}`;
  return randomDag(seed, n, options).map((t) => ({ ...t, files: [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, file))] }));
}
