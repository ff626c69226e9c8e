import type { Plan, PlanTask } from './plan';

/** The text fields of a task a person can fill in when a planner left them empty. */
export const FILLABLE_TASK_FIELDS = ['title', 'description'] as const;
export type FillableTaskField = (typeof FILLABLE_TASK_FIELDS)[number];

/**
 * A problem of one task that a person can fix in the plan review: the planner left a field the
 * actor needs empty. The rest of the plan stands; the run cannot start until it is filled in or
 * the task is dropped.
 */
export interface PlanTaskFinding {
  taskId: string;
  field: FillableTaskField;
}

/** How a person fixes a finding: fill in the field, or drop the task from the plan. */
export type PlanTaskFix = { taskId: string; fill: { field: FillableTaskField; text: string } } | { taskId: string; drop: true };

/** Every task field a person must fill in before the plan can be approved, in plan order. */
export function planTaskFindings(plan: Pick<Plan, 'tasks'>): PlanTaskFinding[] {
  return plan.tasks.flatMap((task) => FILLABLE_TASK_FIELDS.filter((field) => task[field].trim() === '').map((field) => ({ taskId: task.id, field })));
}

/** The tasks that depend on `taskId`: dropping it takes that dependency from them. */
export const dependentsOf = (plan: Pick<Plan, 'tasks'>, taskId: string): string[] => plan.tasks.filter((t) => t.dependsOn.includes(taskId)).map((t) => t.id);

/** The plan with `fix` applied; the caller validates the result as it validates any plan. */
export function applyPlanTaskFix(plan: Plan, fix: PlanTaskFix): Plan {
  if ('drop' in fix) {
    const tasks = plan.tasks
      .filter((t) => t.id !== fix.taskId)
      .map((t): PlanTask => (t.dependsOn.includes(fix.taskId) ? { ...t, dependsOn: t.dependsOn.filter((d) => d !== fix.taskId) } : t));
    return { ...plan, tasks };
  }
  return { ...plan, tasks: plan.tasks.map((t) => (t.id === fix.taskId ? { ...t, [fix.fill.field]: fix.fill.text } : t)) };
}
