import type { GateResult } from '../gate/runGate';
import { gateJudging } from './baseline';
import { gateKey, servedFromCache } from './gateCache';
import { runProjectGate } from './projectGate';
import type { RunContext } from './runContext';

/**
 * The integration gate on `commit` (checked out in the integration worktree): every test, judged
 * against the baseline like a task's gate, served from the cache when a gate with the same key ran.
 * New failures of a command that the batch's task gates ran only in part are recorded as missed
 * regressions. Records its gate_result unless it was stopped or could not start.
 */
export async function integrationGate(ctx: RunContext, commit: string, batch: { attempt: number; taskIds: string[] }): Promise<GateResult> {
  const { session } = ctx;
  const tree = await ctx.worktrees.treeOf(commit);
  const judging = await gateJudging(ctx);
  const key = gateKey(ctx, tree, { kind: 'gate' });
  const record = { type: 'gate_result' as const, taskId: null, attempt: batch.attempt, commit, taskIds: batch.taskIds, key };
  const served = servedFromCache(ctx, key);
  if (served) {
    session.emit({ ...record, passed: served.gate.passed, commands: served.gate.commands, cachedFrom: served.cachedFrom });
    return served.gate;
  }
  const gate = await runProjectGate(ctx, ctx.integration.path, { setUp: true, judging });
  if (gate.cancelled || ctx.signal.aborted || gate.sandboxFailure) return gate;
  session.emit({ ...record, passed: gate.passed, commands: gate.commands });
  recordMissedRegressions(ctx, gate, batch.taskIds);
  return gate;
}

/** New failures the integration gate found in a command whose task gates, in this batch, ran only the tests their change could affect. */
function recordMissedRegressions(ctx: RunContext, gate: GateResult, taskIds: string[]): void {
  const { session } = ctx;
  for (const command of gate.commands) {
    const found = command.tests?.newFailures ?? [];
    if (found.length === 0) continue;
    const narrowed = taskIds.filter((id) => session.task(id).lastGate?.commands.some((c) => c.command === command.command && c.selection?.kind === 'affected'));
    if (narrowed.length) session.emit({ type: 'missed_regression', command: command.command, tests: found, taskIds: narrowed });
  }
}
