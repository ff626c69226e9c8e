import { bestFailedCandidate, type CandidateView } from '../domain/candidates';
import type { PlanTask } from '../domain/plan';
import { CANDIDATE_CHOICE_JSON_SCHEMA, compareCandidatesPrompt, parseCandidateChoice } from '../loop/comparePrompt';
import { callAgent, describeFailure } from '../session/agentCall';
import type { RunContext } from '../session/runContext';
import { handleAgentFailure, stoppedByBudget } from './stepOutcome';

/**
 * Chooses the candidate the task goes on with, recorded as `candidate_picked`: among two or more
 * that passed the gate, the critic compares them against the task's acceptance and picks one with
 * its reasons; one that passed alone goes on; when none passed, the one with the fewest failing
 * gate commands does, into the usual retry loop. False when the task stopped instead (a budget, a
 * quota, a cancel).
 */
export async function pickCandidate(ctx: RunContext, task: PlanTask, finished: readonly CandidateView[]): Promise<boolean> {
  const { session } = ctx;
  const passed = finished.filter((c) => c.passed).map((c) => c.candidate);
  const pick = (candidate: number, by: 'critic' | 'gate', reasons: string) =>
    session.emit({ type: 'candidate_picked', taskId: task.id, candidate, by, reasons, passed });
  if (passed.length === 0) {
    const best = bestFailedCandidate(finished)!;
    pick(best.candidate, 'gate', `candidate ${best.candidate} failed the fewest gate commands; the task's retries go on from its work`);
    return true;
  }
  if (passed.length === 1) {
    pick(passed[0]!, 'gate', `candidate ${passed[0]} is the only one that passed the gate`);
    return true;
  }
  if (stoppedByBudget(ctx, task.id)) return false;
  const compared = await Promise.all(
    finished
      .filter((c) => c.passed)
      .map(async (c) => ({
        candidate: c.candidate,
        agent: c.model ? `${c.agent} (${c.model})` : c.agent,
        diff: await ctx.worktrees.diffBetween(c.baseCommit, c.commit ?? c.baseCommit),
        gateCommands: c.commands.map((r) => r.command),
      })),
  );
  const result = await callAgent(ctx, {
    role: 'critic',
    taskId: task.id,
    attempt: 1,
    purpose: 'compare',
    prompt: compareCandidatesPrompt(task, compared),
    cwd: session.task(task.id).worktreePath ?? session.state.repoRoot,
    access: 'read-only',
    outputSchema: CANDIDATE_CHOICE_JSON_SCHEMA,
  });
  if (result.status === 'cancelled' || result.status === 'quota') {
    handleAgentFailure(ctx, task.id, 'critic', result);
    return false;
  }
  const choice = result.status === 'ok' ? parseCandidateChoice(result.structured, result.text, passed) : undefined;
  if (choice) {
    pick(choice.pick, 'critic', choice.reasons);
    return true;
  }
  // The critic's own review of the pick follows, so a comparison that failed costs the choice only, never the check.
  const why = result.status === 'ok' ? 'the critic named no candidate that passed' : describeFailure('critic', result, session.state.config.stuckThresholdSeconds);
  pick(passed[0]!, 'gate', `${why}; the lowest-numbered candidate that passed goes on`);
  return true;
}
