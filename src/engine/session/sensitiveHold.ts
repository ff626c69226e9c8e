import type { PlanTask } from '../domain/plan';
import type { RunConfig } from '../domain/runConfig';
import type { RunState } from '../domain/runState';
import { DEFAULT_SENSITIVE_PATHS, describeSensitiveChange, unreleasedChanges, type SensitiveChange } from '../domain/sensitivePaths';
import type { RunContext } from './runContext';

/** The run's patterns: as recorded when it was created, the defaults for a run created before the setting existed. */
export const sensitivePatterns = (config: RunConfig): readonly string[] => config.sensitivePaths ?? DEFAULT_SENSITIVE_PATHS;

/**
 * What releases a task's sensitive changes: its plan entry's `sensitive` list when a person wrote
 * the plan (`--plan`) or approved it (an autopilot approval of the planner's draft is only the
 * planner's word, which whatever it read may have steered), and the paths a human accepted for it.
 */
export function releasedFor(state: Pick<RunState, 'planApprovedBy' | 'planDraftedByAgent' | 'tasks'>, task: PlanTask): string[] {
  const byPerson = state.planApprovedBy === 'human' || !state.planDraftedByAgent;
  const planned = byPerson ? (task.sensitive ?? []) : [];
  return [...planned, ...(state.tasks[task.id]?.sensitiveApproved ?? [])];
}

/** The sensitive changes of the task's committed work since `base` that nothing released. */
export async function unreleasedSensitiveChanges(ctx: Pick<RunContext, 'session' | 'worktrees'>, task: PlanTask, path: string, base: string): Promise<SensitiveChange[]> {
  const { state } = ctx.session;
  const changes = await ctx.worktrees.sensitiveChanges(path, base, sensitivePatterns(state.config));
  return unreleasedChanges(changes, releasedFor(state, task));
}

/** The words of a hold, for reasons: "touches a sensitive path: …". */
export const sensitiveReason = (files: readonly SensitiveChange[]): string =>
  `touches a sensitive path: ${files.map(describeSensitiveChange).join(', ')}`;

/**
 * Stops an approved task short of the merge queue: it needs a human, who accepts (the paths are
 * approved and the reviewed commit is queued), retries with a note, or skips.
 */
export function holdSensitiveChanges(ctx: Pick<RunContext, 'session'>, taskId: string, held: { commit: string; base: string; files: SensitiveChange[] }, after: string): void {
  ctx.session.emit({ type: 'sensitive_held', taskId, ...held });
  ctx.session.transition(taskId, 'SENSITIVE_PATHS_TOUCHED', `${sensitiveReason(held.files)} (${after})`);
}
