import { minimatch } from 'minimatch';
import type { OverlapPair } from '../domain/events';
import type { TaskView } from '../domain/runState';
import { isMovingOn } from '../domain/taskStates';
import { topologicalOrder, type GraphTask } from '../plan/planGraph';

export interface OverlapTask extends GraphTask {
  /** The plan's files hints: paths, folders ("src/" or "src") and globs ("src/**\/*.ts"). */
  readonly files?: readonly string[];
}

const normalize = (hint: string): string => hint.trim().replace(/^\.\//, '').replace(/\/+$/, '');
const isGlob = (hint: string): boolean => /[*?[\]{}!]/.test(hint);

/** Does a files hint cover this concrete path (the path itself, a folder holding it, or a glob matching it)? */
export function hintCovers(hint: string, path: string): boolean {
  const h = normalize(hint);
  const p = normalize(path);
  if (!h) return false;
  if (isGlob(h)) return minimatch(p, h, { dot: true }) || minimatch(p, `${h}/**`, { dot: true });
  return p === h || p.startsWith(`${h}/`);
}

/** The literal part of a glob before its first wildcard segment ("src/lib" for "src/lib/**\/*.ts"). */
function literalBase(glob: string): string {
  const segments = normalize(glob).split('/');
  const firstMagic = segments.findIndex(isGlob);
  return segments.slice(0, firstMagic === -1 ? segments.length : firstMagic).join('/');
}

/**
 * What two sets of hints both cover, as the paths a reader would name: a literal hint the other
 * side covers, a known file (of the repository, or named by any task) both sides cover, or, for
 * two globs that match no known file, the narrower glob when one's folder holds the other's.
 */
export function sharedFiles(a: readonly string[], b: readonly string[], knownFiles: readonly string[]): string[] {
  const shared = new Set<string>();
  for (const x of a) {
    for (const y of b) {
      const [gx, gy] = [isGlob(x), isGlob(y)];
      if (!gx && hintCovers(y, x)) shared.add(normalize(x));
      else if (!gy && hintCovers(x, y)) shared.add(normalize(y));
      else if (gx && gy) {
        const both = knownFiles.filter((f) => hintCovers(x, f) && hintCovers(y, f));
        if (both.length) both.forEach((f) => shared.add(f));
        else if (overlappingBases(literalBase(x), literalBase(y))) shared.add(literalBase(x).length >= literalBase(y).length ? x : y);
      }
    }
  }
  return [...shared].sort();
}

const overlappingBases = (a: string, b: string): boolean => a === b || a === '' || b === '' || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/**
 * Pairs of tasks whose hints meet and that the plan would let run side by side (neither
 * depends on the other, even through others), `first` before `second` in dependency order.
 * Ordering by the dependency order (not plan order) keeps "second waits for first" from ever
 * closing a cycle with the dependencies.
 */
export function predictOverlaps(tasks: readonly OverlapTask[], knownFiles: readonly string[]): OverlapPair[] {
  const order = topologicalOrder({ tasks });
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const ancestors = ancestorSets(tasks, order);
  const known = [...new Set([...knownFiles, ...tasks.flatMap((t) => (t.files ?? []).filter((f) => !isGlob(f)).map(normalize))])];
  const pairs: OverlapPair[] = [];
  for (let i = 0; i < order.length; i++) {
    const first = byId.get(order[i]!)!;
    if (!first.files?.length) continue;
    for (let j = i + 1; j < order.length; j++) {
      const second = byId.get(order[j]!)!;
      if (!second.files?.length || ancestors.get(second.id)!.has(first.id)) continue;
      const files = sharedFiles(first.files, second.files, known);
      if (files.length) pairs.push({ first: first.id, second: second.id, files });
    }
  }
  return pairs;
}

export interface OverlapWait {
  taskId: string;
  files: string[];
}

/** The plan's shape the overlap rules need, computed once per run rather than at every scheduling step. */
export class OverlapIndex {
  private readonly position: Map<string, number>;
  private readonly hints: Map<string, readonly string[]>;
  private readonly ancestors: Map<string, Set<string>>;
  private readonly predicted = new Map<string, OverlapPair[]>();

  constructor(planTasks: readonly OverlapTask[], pairs: readonly OverlapPair[]) {
    const order = topologicalOrder({ tasks: planTasks });
    this.position = new Map(order.map((id, i) => [id, i]));
    this.hints = new Map(planTasks.map((t) => [t.id, t.files ?? []]));
    this.ancestors = ancestorSets(planTasks, order);
    for (const pair of pairs) this.predicted.set(pair.second, [...(this.predicted.get(pair.second) ?? []), pair]);
  }

  /**
   * For each PENDING task, the tasks it must wait for so that the two never run side by side: a
   * task still on its way to the integration branch (running, queued, sent back) whose hints or
   * committed files meet its hints, and which either comes before it in dependency order or has
   * already started. A task waiting for a person, merged, skipped or cancelled holds nobody up.
   * Only tasks with at least one wait appear in the map.
   */
  waits(tasks: ReadonlyArray<Pick<TaskView, 'id' | 'state' | 'changedFiles'>>): Map<string, OverlapWait[]> {
    const waits = new Map<string, OverlapWait[]>();
    const moving = tasks.filter((t) => isMovingOn(t.state));
    for (const task of tasks) {
      const hints = this.hints.get(task.id) ?? [];
      if (task.state !== 'PENDING' || hints.length === 0) continue;
      const found: OverlapWait[] = [];
      for (const other of moving) {
        if (other.id === task.id || this.ancestors.get(task.id)?.has(other.id)) continue;
        const before = this.position.get(other.id)! < this.position.get(task.id)!;
        if (other.state === 'PENDING' && !before) continue;
        const files = new Set(before ? (this.predicted.get(task.id)?.find((p) => p.first === other.id)?.files ?? []) : []);
        for (const changed of other.changedFiles) if (hints.some((h) => hintCovers(h, changed))) files.add(changed);
        if (files.size) found.push({ taskId: other.id, files: [...files].sort() });
      }
      if (found.length) waits.set(task.id, found);
    }
    return waits;
  }
}

/** Every task's transitive dependencies. */
function ancestorSets(tasks: readonly GraphTask[], order: readonly string[]): Map<string, Set<string>> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const sets = new Map<string, Set<string>>();
  for (const id of order) {
    const set = new Set<string>();
    for (const dep of byId.get(id)!.dependsOn) {
      if (!byId.has(dep)) continue;
      set.add(dep);
      for (const a of sets.get(dep) ?? []) set.add(a);
    }
    sets.set(id, set);
  }
  return sets;
}
