import { isInFlight, isMovingOn, isReturned, isSatisfied, type TaskState } from '../domain/taskStates';

export interface SchedulableTask {
  id: string;
  dependsOn: readonly string[];
  state: TaskState;
}

/** A dependency in one of these will not go green on its own, so what waits on it cannot start. */
const DEAD_END_STATES: readonly TaskState[] = ['NEEDS_HUMAN', 'HUMAN_RESOLVING', 'SKIPPED', 'CANCELLED'];

/**
 * Tasks to hand to an agent now, at most maxParallel minus the number in flight
 * (IN_FLIGHT_STATES): first the ones the merge queue sent back (a conflict to resolve, a failed
 * integration gate to fix: they hold work that is otherwise done), then ready PENDING tasks (every
 * dependency merged, see SATISFIED_STATES, and no overlap to wait for), longest remaining chain
 * first, ties in plan order.
 *
 * Longest chain first is the classic critical-path list-scheduling rule: starting the work
 * with the most still queued behind it keeps the makespan close to its lower bound.
 * A dependency on an id that is not among `tasks` is never satisfied.
 */
export function pickTasksToStart(
  tasks: readonly SchedulableTask[],
  maxParallel: number,
  chainLength: ReadonlyMap<string, number>,
  waiting: ReadonlySet<string> = new Set(),
): string[] {
  if (!(maxParallel >= 1)) throw new RangeError(`maxParallel must be at least 1, got ${maxParallel}`);
  const slots = Math.floor(maxParallel) - tasks.filter((t) => isInFlight(t.state)).length;
  if (slots <= 0) return [];
  const byId = indexById(tasks);
  const returned = tasks.filter((t) => isReturned(t.state)).map((t) => t.id);
  const ready = tasks
    .map((task, position) => ({ task, position, chain: chainLength.get(task.id) ?? 0 }))
    .filter(({ task }) => task.state === 'PENDING' && !waiting.has(task.id) && dependenciesSatisfied(task, byId))
    .sort((a, b) => b.chain - a.chain || a.position - b.position)
    .map(({ task }) => task.id);
  return [...returned, ...ready].slice(0, slots);
}

/**
 * PENDING tasks that cannot start because a dependency waits for a person or ended SKIPPED/CANCELLED
 * — transitively (a chain a→b→c with a NEEDS_HUMAN yields b and c), each with the dependency
 * that blocks it.
 *
 * `blockedBy` is the task that actually ended badly (for c above: a, not the still-PENDING b),
 * so a caller can quote its state and reason. With several, the first in `dependsOn` order wins.
 * Results are in plan order.
 */
export function findBlockedTasks(tasks: readonly SchedulableTask[]): Array<{ taskId: string; blockedBy: string }> {
  const byId = indexById(tasks);
  const rootCause = new Map<string, string | null>();
  const visiting = new Set<string>();

  const blockerOf = (task: SchedulableTask): string | null => {
    const known = rootCause.get(task.id);
    if (known !== undefined) return known;
    if (visiting.has(task.id)) return null; // a cycle; validation rejects these, so do not loop on one
    visiting.add(task.id);
    let blocker: string | null = null;
    for (const depId of task.dependsOn) {
      const dep = byId.get(depId);
      if (!dep) continue;
      if (DEAD_END_STATES.includes(dep.state)) blocker = dep.id;
      else if (dep.state === 'PENDING') blocker = blockerOf(dep);
      if (blocker !== null) break;
    }
    visiting.delete(task.id);
    rootCause.set(task.id, blocker);
    return blocker;
  };

  return tasks.flatMap((task) => {
    if (task.state !== 'PENDING') return [];
    const blockedBy = blockerOf(task);
    return blockedBy === null ? [] : [{ taskId: task.id, blockedBy }];
  });
}

/**
 * SKIPPED tasks (only those in skippedByDependency) whose dependencies are now all merged or
 * on their way again (pending, in flight, queued (e.g. after a human retried the failed one) → may return to PENDING.
 *
 * Revival is transitive in one call: in a→b→c, once a is retried both b and c come back,
 * because b coming back makes c's dependency pending again. A PENDING dependency that is
 * itself blocked does not count, otherwise a task would be revived and skipped again forever.
 * Results are in plan order.
 */
export function findRevivableTasks(tasks: readonly SchedulableTask[], skippedByDependency: ReadonlySet<string>): string[] {
  const byId = indexById(tasks);
  const blocked = new Set(findBlockedTasks(tasks).map((b) => b.taskId));
  const candidates = tasks.filter((t) => t.state === 'SKIPPED' && skippedByDependency.has(t.id));
  const revived = new Set<string>();

  const canProceed = (depId: string): boolean => {
    const dep = byId.get(depId);
    if (!dep) return false;
    if (dep.state === 'PENDING') return !blocked.has(dep.id);
    return isSatisfied(dep.state) || isMovingOn(dep.state) || revived.has(dep.id);
  };

  // Each pass can only add tasks, so this settles in at most `candidates.length` passes.
  for (let changed = true; changed; ) {
    changed = false;
    for (const task of candidates) {
      if (!revived.has(task.id) && task.dependsOn.every(canProceed)) {
        revived.add(task.id);
        changed = true;
      }
    }
  }
  return candidates.filter((t) => revived.has(t.id)).map((t) => t.id);
}

function indexById(tasks: readonly SchedulableTask[]): Map<string, SchedulableTask> {
  return new Map(tasks.map((t) => [t.id, t]));
}

function dependenciesSatisfied(task: SchedulableTask, byId: ReadonlyMap<string, SchedulableTask>): boolean {
  return task.dependsOn.every((depId) => {
    const dep = byId.get(depId);
    return dep !== undefined && isSatisfied(dep.state);
  });
}
