/** The part of a task the graph functions need, so schedulers and simulations can pass their own shapes. */
export interface GraphTask {
  readonly id: string;
  readonly dependsOn: readonly string[];
}

export interface GraphLike {
  readonly tasks: readonly GraphTask[];
}

export class PlanCycleError extends Error {
  override readonly name = 'PlanCycleError';
  constructor(readonly taskIds: string[]) {
    super(`The plan has a dependency cycle among: ${taskIds.join(', ')}`);
  }
}

/**
 * Every task after all of its dependencies. Among tasks that are ready at the same time, the
 * one listed first in the plan comes first, so the order is stable and reads like the plan.
 * Dependencies on ids not in the plan are ignored (parsePlan reports them). Throws PlanCycleError.
 */
export function topologicalOrder(plan: GraphLike): string[] {
  const ids = new Set(plan.tasks.map((t) => t.id));
  const waitingOn = new Map(plan.tasks.map((t) => [t.id, new Set(t.dependsOn.filter((d) => ids.has(d) && d !== t.id))]));
  const selfLoops = plan.tasks.filter((t) => t.dependsOn.includes(t.id)).map((t) => t.id);
  if (selfLoops.length > 0) throw new PlanCycleError(selfLoops);

  const dependents = dependentsIndex(plan);
  const position = new Map(plan.tasks.map((t, i) => [t.id, i]));
  // A small sorted frontier is enough: plans have tens of tasks, and it keeps "plan order among ready" obvious.
  const ready = plan.tasks.filter((t) => waitingOn.get(t.id)!.size === 0).map((t) => t.id);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const dependent of dependents.get(id) ?? []) {
      const waiting = waitingOn.get(dependent)!;
      waiting.delete(id);
      if (waiting.size === 0) {
        ready.push(dependent);
        ready.sort((a, b) => position.get(a)! - position.get(b)!);
      }
    }
  }
  if (order.length < waitingOn.size) {
    throw new PlanCycleError(plan.tasks.map((t) => t.id).filter((id) => !order.includes(id)));
  }
  return order;
}

/**
 * For each task, the length of the longest path from it to a task nothing depends on,
 * counting the task itself: how much work, at best, still has to happen in sequence once it
 * starts. Each task weighs `duration.get(id)` (default 1).
 */
export function remainingChainLengths(plan: GraphLike, duration?: ReadonlyMap<string, number>): Map<string, number> {
  const dependents = dependentsIndex(plan);
  const lengths = new Map<string, number>();
  for (const id of topologicalOrder(plan).reverse()) {
    const after = Math.max(0, ...[...(dependents.get(id) ?? [])].map((d) => lengths.get(d)!));
    lengths.set(id, (duration?.get(id) ?? 1) + after);
  }
  return lengths;
}

/** Every task that depends on `id`, directly or through other tasks; `id` itself is not included. */
export function transitiveDependents(plan: GraphLike, id: string): Set<string> {
  const dependents = dependentsIndex(plan);
  const found = new Set<string>();
  const queue = [id];
  while (queue.length > 0) {
    for (const dependent of dependents.get(queue.shift()!) ?? []) {
      if (dependent !== id && !found.has(dependent)) {
        found.add(dependent);
        queue.push(dependent);
      }
    }
  }
  return found;
}

/** Reverse edges: for each task id, the tasks that list it in `dependsOn`, in plan order. */
function dependentsIndex(plan: GraphLike): Map<string, Set<string>> {
  const ids = new Set(plan.tasks.map((t) => t.id));
  const index = new Map<string, Set<string>>();
  for (const task of plan.tasks) {
    for (const dep of task.dependsOn) {
      if (!ids.has(dep) || dep === task.id) continue;
      const set = index.get(dep) ?? new Set<string>();
      set.add(task.id);
      index.set(dep, set);
    }
  }
  return index;
}
