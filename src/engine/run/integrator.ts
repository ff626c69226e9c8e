import { topologicalOrder } from '../plan/planGraph';
import { isSatisfied } from '../domain/taskStates';
import { runProjectGate } from './projectGate';
import type { RunContext } from './runContext';

/**
 * Merges every green task branch into the run's integration branch (`--no-ff`, dependency
 * order), records conflicts without losing the other merges, and runs the gate on the result.
 * Safe to repeat: a branch already contained in the integration branch is not merged again.
 */
export async function integrate(ctx: RunContext): Promise<{ clean: boolean; gatePassed: boolean }> {
  const { session, worktrees } = ctx;
  const { state } = session;
  const prepared = await worktrees.prepareIntegration(state.baseCommit);
  if (state.integration.branch !== prepared.branch || state.integration.path !== prepared.path) {
    session.emit({ type: 'integration_prepared', branch: prepared.branch, path: prepared.path });
  }
  for (const taskId of topologicalOrder(state.plan)) {
    const task = session.task(taskId);
    if (!isSatisfied(task.state) || state.integration.merged.includes(taskId)) continue;
    const merge = await worktrees.mergeTask(taskId, `taskloom: merge ${taskId} (${task.title})`);
    if (merge.status === 'conflict') {
      session.emit({ type: 'merge_conflict', taskId, files: merge.files });
    } else {
      session.emit({ type: 'merge_done', taskId, commit: merge.commit, alreadyMerged: merge.status === 'already' });
    }
  }
  const gate = await runProjectGate(ctx, prepared.path);
  session.emit({ type: 'gate_result', taskId: null, attempt: 1, passed: gate.passed, commands: gate.commands });
  const greenIds = state.taskOrder.filter((id) => isSatisfied(session.task(id).state));
  await worktrees.cleanup({ greenTaskIds: greenIds });
  return { clean: state.integration.conflicts.length === 0, gatePassed: gate.passed };
}
