import type * as z from 'zod';
import type { Plan } from '../domain/plan';
import { TaskloomError } from '../domain/taskloomError';
import { DraftPlanSchema, LooseGraphSchema, LooseGraphTaskSchema, PlanSchema, quoteForMessage as q } from './planSchema';
import type { PlanPath, TextSpan } from './problemSpans';

/** A message lists this many problems; a plan with thousands of broken tasks says how many more there are. */
const LISTED_PROBLEMS = 50;

/** Where one problem is: in the plan object, and, once the file's text is known, in the file. */
export interface ProblemPlace {
  path?: PlanPath;
  span?: TextSpan;
}

/** A plan that cannot be run, with every reason at once so a planner or a human can fix them in one go. */
export class PlanValidationError extends TaskloomError {
  override readonly name = 'PlanValidationError';

  constructor(
    readonly problems: string[],
    /** The file (or other origin) the plan came from, when there is one. */
    readonly source?: string,
    /** Where each problem is (same order as `problems`), as far as it is known. */
    readonly places: ReadonlyArray<ProblemPlace | undefined> = [],
  ) {
    const where = source ? ` in ${source}` : '';
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    const listed = problems.slice(0, LISTED_PROBLEMS).map((p) => `  - ${p}`);
    if (problems.length > LISTED_PROBLEMS) listed.push(`  … and ${problems.length - LISTED_PROBLEMS} more`);
    super('bad_input', `Invalid plan${where} (${count}):\n${listed.join('\n')}`);
  }
}

/** Validates `input` as a plan and returns it normalised (strings trimmed, defaults filled, unknown keys dropped). */
export function parsePlan(input: unknown): Plan {
  return parseWith(PlanSchema, input);
}

/**
 * Validates a draft for review: as parsePlan, except that a task's empty (or missing) title or
 * description is kept as '' — a finding on that task (domain/planFindings.ts) for a person to
 * fill in or drop — instead of a reason to reject the whole plan.
 */
export function parsePlanDraft(input: unknown): Plan {
  return parseWith(DraftPlanSchema, input);
}

function parseWith(schema: typeof PlanSchema | typeof DraftPlanSchema, input: unknown): Plan {
  const graph = looseGraph(input);
  const shape = schema.safeParse(input);
  const found: PathProblem[] = [
    ...(shape.success ? [] : shape.error.issues.map((issue) => ({ message: describeIssue(issue, graph), path: issue.path.filter(isPathKey) }))),
    ...graphProblems(graph),
  ];
  if (found.length > 0 || !shape.success) {
    throw new PlanValidationError(
      found.map((p) => p.message),
      undefined,
      found.map((p) => ({ path: p.path })),
    );
  }
  return shape.data;
}

interface PathProblem {
  message: string;
  path: PlanPath;
}

const isPathKey = (key: PropertyKey): key is string | number => typeof key !== 'symbol';

interface LooseTask {
  index: number;
  id: string | undefined;
  dependsOn: string[];
  /** As written (with repeats and blanks), so a problem can point at its entry. */
  rawDependsOn: Array<string | undefined>;
}

function looseGraph(input: unknown): LooseTask[] {
  return LooseGraphSchema.parse(input).tasks.map((raw, index) => {
    const task = LooseGraphTaskSchema.safeParse(raw);
    if (!task.success) return { index, id: undefined, dependsOn: [], rawDependsOn: [] };
    const written = task.data.dependsOn ?? [];
    const deps = written.filter((d): d is string => d !== undefined);
    return { index, id: task.data.id, dependsOn: [...new Set(deps)], rawDependsOn: written };
  });
}

const label = (task: LooseTask): string => (task.id !== undefined ? `task ${q(task.id)}` : `tasks[${task.index}]`);

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || 'plan';
}

function describeIssue(issue: z.core.$ZodIssue, graph: readonly LooseTask[]): string {
  const [top, index, field] = issue.path;
  let where = formatPath(issue.path);
  // The index says where; the id says which task a human is thinking of. The id's own issue already quotes it.
  if (top === 'tasks' && typeof index === 'number' && field !== 'id') {
    const id = graph[index]?.id;
    if (id !== undefined) where += ` (task ${q(id)})`;
  }
  return `${where}: ${issue.message}`;
}

function graphProblems(tasks: readonly LooseTask[]): PathProblem[] {
  const named = tasks.filter((t): t is LooseTask & { id: string } => t.id !== undefined);
  return [...duplicateIdProblems(named), ...dependencyProblems(tasks, named), ...cycleProblems(named)];
}

function duplicateIdProblems(named: ReadonlyArray<LooseTask & { id: string }>): PathProblem[] {
  // Case-insensitive, because branches and worktree folders clash on case-insensitive file systems.
  const groups = new Map<string, Array<LooseTask & { id: string }>>();
  for (const task of named) {
    const key = task.id.toLowerCase();
    groups.set(key, [...(groups.get(key) ?? []), task]);
  }
  const problems: PathProblem[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const places = group.map((t) => `tasks[${t.index}]`).join(', ');
    const spellings = new Set(group.map((t) => t.id));
    problems.push({
      // The second use of the id is the one to change.
      path: ['tasks', group[1]!.index, 'id'],
      message: spellings.size === 1
        ? `duplicate task id ${q(group[0]!.id)} (${places})`
        : `task ids ${[...spellings].map((s) => q(s)).join(', ')} differ only in letter case (${places}); ` +
            'their branches and folders would clash on a case-insensitive file system',
    });
  }
  return problems;
}

function dependencyProblems(tasks: readonly LooseTask[], named: ReadonlyArray<LooseTask & { id: string }>): PathProblem[] {
  const ids = new Set(named.map((t) => t.id));
  const problems: PathProblem[] = [];
  for (const task of tasks) {
    for (const dep of task.dependsOn) {
      const path = ['tasks', task.index, 'dependsOn', task.rawDependsOn.indexOf(dep)];
      if (dep === task.id) {
        problems.push({ path, message: `${label(task)} depends on itself` });
      } else if (!ids.has(dep)) {
        const near = named.find((t) => t.id.toLowerCase() === dep.toLowerCase());
        problems.push({ path, message: `${label(task)} depends on unknown task ${q(dep)}${near ? ` (did you mean ${q(near.id)}?)` : ''}` });
      }
    }
  }
  return problems;
}

function cycleProblems(named: ReadonlyArray<LooseTask & { id: string }>): PathProblem[] {
  // Self and unknown dependencies are reported on their own; here only real edges between tasks count.
  const edges = new Map<string, string[]>();
  for (const task of named) {
    const out = edges.get(task.id) ?? [];
    for (const dep of task.dependsOn) if (dep !== task.id && !out.includes(dep)) out.push(dep);
    edges.set(task.id, out);
  }
  for (const [id, out] of edges) edges.set(id, out.filter((dep) => edges.has(dep)));

  return stronglyConnectedComponents(edges)
    .filter((component) => component.length > 1)
    .map((component) => {
      const cycle = cycleThrough(component[0]!, new Set(component), edges);
      const others = component.filter((id) => !cycle.includes(id));
      const extra = others.length > 0 ? `; also caught in it: ${others.map(bare).join(', ')}` : '';
      const first = named.find((t) => t.id === cycle[0])!;
      return {
        path: ['tasks', first.index, 'dependsOn'],
        message: `dependency cycle: ${[...cycle, cycle[0]!].map(bare).join(' → ')} (each task depends on the next${extra})`,
      };
    });
}

/** An id as it is when it is plain, quoted and escaped when it is not (or is long). */
const bare = (id: string): string => (q(id) === JSON.stringify(id) ? id : q(id));

/** Tarjan's algorithm; each component is listed in plan order, and components by their first task. */
function stronglyConnectedComponents(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map([...edges.keys()].map((id, i) => [id, i]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;

  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      components.push(component.sort((a, b) => order.get(a)! - order.get(b)!));
    }
  };
  for (const id of edges.keys()) if (!index.has(id)) visit(id);
  return components.sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}

/** The shortest cycle from `start` back to itself inside one component, following dependencies in listed order. */
function cycleThrough(start: string, members: ReadonlySet<string>, edges: ReadonlyMap<string, readonly string[]>): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return path;
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start]; // unreachable for a component of two or more tasks
}
