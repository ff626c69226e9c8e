import type { GateJudging } from '../gate/judgedGate';
import { undecidedBaselineFailures } from '../domain/gateProjection';
import type { BaselineView } from '../domain/runState';
import { BaselineWorktree } from '../workspace/baselineWorktree';
import { cachedBaseline, gateKey, rememberBaseline } from './gateCache';
import { runProjectGate } from './projectGate';
import type { RunContext } from './runContext';

/**
 * The gate on the run's base commit, once per run (and not again for a base an earlier run of
 * this repository gated with the same commands and environment): what fails there is not a
 * task's to fix. Runs beside the first actors; the first gate waits for it. Undefined when the
 * baseline is off, there is no gate, or it could not run (then every failure counts, as without one).
 */
export async function gateTheBase(ctx: RunContext): Promise<BaselineView | undefined> {
  const { session } = ctx;
  const { state } = session;
  if (!state.config.gate?.baseline || state.config.gateCommands.length === 0) return undefined;
  const worktree = new BaselineWorktree(ctx.worktrees.repo, state.runId, state.config.worktree?.root);
  // A drive killed while the baseline ran left its checkout; whether or not this drive gates the base again, it goes.
  await worktree.removeIfLeft().catch(() => undefined);
  if (state.baseline?.commit === state.baseCommit) return state.baseline;
  const tree = await ctx.worktrees.treeOf(state.baseCommit);
  const key = gateKey(ctx, tree, { kind: 'baseline' });
  const cached = cachedBaseline(state.repoRoot, key);
  if (cached) {
    session.emit({ type: 'baseline_result', commit: state.baseCommit, tree, key, commands: cached, cached: true });
    return answeredBySetting(ctx);
  }
  try {
    const path = await worktree.checkout(state.baseCommit);
    const gate = await runProjectGate(ctx, path, { setUp: true, judging: { flakyReruns: 0, keepGoing: true } });
    if (gate.cancelled) return undefined;
    const setupFailed = gate.commands.length > 0 && !state.config.gateCommands.includes(gate.commands[gate.commands.length - 1]!.command);
    if (gate.stuck || gate.sandboxFailure || setupFailed) {
      const why = gate.sandboxFailure ?? (gate.stuck ? 'a command showed no output for too long' : 'its setup failed');
      session.emit({ type: 'warning', message: `the gate could not run on the base (${why}): every failure a task's gate finds counts as the task's` });
      return undefined;
    }
    session.emit({ type: 'baseline_result', commit: state.baseCommit, tree, key, commands: gate.commands });
    rememberBaseline(state.repoRoot, key, gate.commands);
    return answeredBySetting(ctx);
  } finally {
    await worktree.remove().catch(() => undefined);
  }
}

/** A base failure the user decided ahead (taskloom.gate.onBaseFailure) is answered at once, not asked. */
function answeredBySetting(ctx: RunContext): BaselineView | undefined {
  const { session } = ctx;
  const choice = session.state.config.gate?.onBaseFailure;
  const undecided = undecidedBaselineFailures(session.state);
  if (choice && undecided.length) session.emit({ type: 'baseline_choice', commands: undecided, choice, bySetting: true });
  return session.state.baseline;
}

/** How a gate of this run judges: against the baseline (awaited; a task's gate then checks undecidedBaselineFailures), with the run's reruns; `changed` for a task's affected-only gate. */
export async function gateJudging(ctx: RunContext, changed?: readonly string[]): Promise<GateJudging> {
  const baseline = await (ctx.baseline ?? Promise.resolve(undefined));
  const { gate } = ctx.session.state.config;
  return {
    flakyReruns: gate?.flakyReruns ?? 0,
    ...(baseline ? { baseline: { commands: baseline.commands, advisory: baseline.advisory } } : {}),
    ...(changed && gate?.affectedOnly ? { changed } : {}),
  };
}
