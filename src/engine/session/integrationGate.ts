import type { GateResult } from '../gate/runGate';
import { gateKey } from './gateCache';
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
  const baseline = await (ctx.baseline ?? Promise.resolve(undefined));
  const key = gateKey(ctx, tree, { kind: 'gate' });
  const hit = session.state.gateCache[key];
  const record = { type: 'gate_result' as const, taskId: null, attempt: batch.attempt, commit, taskIds: batch.taskIds, key };
  if (hit) {
    session.emit({ ...record, passed: hit.passed, commands: hit.commands, cachedFrom: { seq: hit.seq, taskId: hit.taskId, attempt: hit.attempt } });
    return { passed: hit.passed, stuck: false, cancelled: false, commands: hit.commands };
  }
  const { gate: gateConfig } = session.state.config;
  const judging = { flakyReruns: gateConfig?.flakyReruns ?? 0, ...(baseline ? { baseline: { commands: baseline.commands, advisory: baseline.advisory } } : {}) };
  const gate = await runProjectGate(ctx, ctx.integration.path, { setUp: true, ...(gateConfig ? { judging } : {}) });
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
