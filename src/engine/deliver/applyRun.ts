import type { ApplyHistory } from '../domain/events';
import type { RunState } from '../domain/runState';
import type { RunSession } from '../run/runSession';
import { taskCommits } from '../run/taskCommits';
import { commitMessage } from '../workspace/commitMessage';
import { WorkspaceError } from '../workspace/errors';
import { Git } from '../workspace/git';
import { resolveCommit } from '../workspace/gitQueries';
import { branchContains, checkoutToApplyTo, fastForwardCurrentBranch, mergeIntoCurrentBranch, type MergedIntoBranch } from '../workspace/mergeIntoCurrentBranch';
import { squashOnto, type SquashStep } from '../workspace/squashOnto';
import { pullRequestTitle } from '../report/pullRequestBody';

export interface ApplyOutcome extends MergedIntoBranch {
  history: ApplyHistory;
  /** Commits put on the user's branch (one merge, or one per task with a change). */
  commits: number;
  /** It was applied before (or merged by hand): nothing changed now. */
  alreadyApplied: boolean;
  /** Tasks whose work the run does not hold, and why. */
  leftOut: Array<{ taskId: string; title: string; reason: string }>;
}

/**
 * What `apply` may apply: only a completed run, whose integration gate passed on the very commit
 * that would land. Throws a WorkspaceError saying what is missing otherwise.
 */
export async function applicableHead(state: RunState, repoRoot: string): Promise<string> {
  if (state.status !== 'completed') {
    const waiting = state.taskOrder.filter((id) => !['MERGED', 'SKIPPED'].includes(state.tasks[id]!.state));
    throw new WorkspaceError(
      `Run ${state.runId} is ${state.status === 'needs_human' ? 'waiting for you' : state.status}, not completed${waiting.length ? ` (not merged yet: ${waiting.join(', ')})` : ''}`,
      'Only a completed run — every task merged or skipped, the integration gate passed on the result — can be applied.',
    );
  }
  const branch = state.integration.branch;
  const head = branch ? await resolveCommit(new Git(repoRoot), `refs/heads/${branch}`) : null;
  if (!branch || !head) throw new WorkspaceError(`Run ${state.runId} has no integration branch`, 'Nothing was merged, so there is nothing to apply.');
  const gate = state.integration.lastGate;
  // A 0.1 log records no commit with its gate result: its completed run gated the final merges.
  const gated = head === state.baseCommit || (gate?.passed === true && (gate.commit === undefined || gate.commit === head));
  if (!gated || state.finishedCounts?.integrationGatePassed === false) {
    throw new WorkspaceError(
      `The integration gate did not pass on ${branch} as it stands (${head.slice(0, 10)})`,
      'Resume the run to gate it again.',
      { next: [{ kind: 'resume', runId: state.runId }] },
    );
  }
  return head;
}

/**
 * Applies a completed run to the branch checked out in `cwd` (refused on a dirty tree):
 * `merge` makes one merge commit of the integration branch; `squash` puts one commit per task on
 * the branch, each titled by its task with the task and the run in trailers (the attempt
 * commits stay on the task branches). Records the apply, so a second one says so.
 */
export async function applyRun(session: RunSession, cwd: string, history: ApplyHistory): Promise<ApplyOutcome> {
  const { state } = session;
  const head = await applicableHead(state, state.repoRoot);
  const repo = await checkoutToApplyTo(cwd);
  const leftOut = state.taskOrder
    .filter((id) => state.tasks[id]!.state === 'SKIPPED')
    .map((id) => ({ taskId: id, title: state.tasks[id]!.title, reason: state.tasks[id]!.lastReason }));
  const applied = state.applied && (await resolveCommit(new Git(repo.root), state.applied.commit)) ? state.applied.commit : undefined;
  if ((applied && (await branchContains(repo, applied))) || (await branchContains(repo, head))) {
    return { branch: repo.headRef, commit: repo.headCommit, files: [], history, commits: 0, alreadyApplied: true, leftOut };
  }
  let result: MergedIntoBranch;
  let commits: number;
  if (history === 'merge') {
    const body = state.integration.merged.map((id) => `- ${state.tasks[id]!.title} (${id})`).join('\n');
    result = await mergeIntoCurrentBranch(repo, head, commitMessage(state.goal, { run: state.runId }, body));
    commits = 1;
  } else {
    const steps: SquashStep[] = state.integration.merged.flatMap((id) => {
      const task = state.tasks[id]!;
      return task.mergeCommit ? [{ mergeCommit: task.mergeCommit, message: taskCommits(session, task).squashed() }] : [];
    });
    // Fixes `watch` pushed on the run's pull request came after the last merge: one more commit.
    const lastMerge = state.integration.head;
    if (lastMerge && lastMerge !== head) {
      const fixes = (await new Git(state.repoRoot).run(['rev-list', '--reverse', '--no-merges', `${lastMerge}..${head}`])).stdout.split('\n').filter(Boolean);
      if (fixes.length) steps.push({ commits: fixes, message: commitMessage(`${pullRequestTitle(state)}: fixes from its pull request`, { run: state.runId }) });
    }
    const squashed = await squashOnto(repo, repo.headCommit, steps);
    result = await fastForwardCurrentBranch(repo, squashed.head);
    commits = squashed.commits;
  }
  session.emit({ type: 'run_applied', branch: result.branch, commit: result.commit, history, commits });
  return { ...result, history, commits, alreadyApplied: false, leftOut };
}
