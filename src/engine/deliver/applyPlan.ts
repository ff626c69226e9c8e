import type { ApplyHistory } from '../domain/events';
import type { RunState } from '../domain/runState';
import { pullRequestTitle } from '../report/pullRequestBody';
import type { RunSession } from '../session/runSession';
import { taskCommits } from '../session/taskCommits';
import { commitMessage } from '../workspace/commitMessage';
import { WorkspaceError } from '../workspace/errors';
import { Git } from '../workspace/git';
import { resolveCommit } from '../workspace/gitQueries';
import { branchContains, checkoutToApplyTo } from '../workspace/mergeIntoCurrentBranch';
import type { RepoInfo } from '../workspace/repoInspector';
import type { SquashStep } from '../workspace/squashOnto';

/** One clean commit the user's branch receives: a task's whole change (`taskId`), or its pull request's fixes (null). */
export type LandingStep = SquashStep & { taskId: string | null };

/** What applying a run would do to the branch checked out in the user's repository, worked out before anything changes. */
export interface ApplyPlan {
  /** The user's checkout (clean, on a branch). */
  repo: RepoInfo;
  history: ApplyHistory;
  /** The integration head the gate passed on: the tree the branch receives. */
  head: string;
  /** One commit per task with a change of its own, in merge order; none for a run already in the branch. */
  steps: LandingStep[];
  /**
   * Commits the branch receives: the steps, and with merge history the merge commit joining them.
   * Exact, but when the user's branch moved and already holds one task's change (squash history
   * then makes no commit for it); what was made is counted after.
   */
  commits: number;
  /** It was applied before (or merged by hand): applying changes nothing. */
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
 * Works out what applying the run to the branch checked out in `cwd` makes, changing nothing:
 * refused as `apply` is (a run not completed or not gated, a dirty tree, a detached HEAD).
 */
export async function planApply(session: RunSession, cwd: string, history: ApplyHistory): Promise<ApplyPlan> {
  const { state } = session;
  const head = await applicableHead(state, state.repoRoot);
  const repo = await checkoutToApplyTo(cwd);
  const leftOut = state.taskOrder
    .filter((id) => state.tasks[id]!.state === 'SKIPPED')
    .map((id) => ({ taskId: id, title: state.tasks[id]!.title, reason: state.tasks[id]!.lastReason }));
  const applied = state.applied && (await resolveCommit(new Git(repo.root), state.applied.commit)) ? state.applied.commit : undefined;
  // The integration head itself is in the branch where an earlier release applied it as it was.
  if ((applied && (await branchContains(repo, applied))) || (await branchContains(repo, head))) {
    return { repo, history, head, steps: [], commits: 0, alreadyApplied: true, leftOut };
  }
  const steps = await landingSteps(session, head);
  const commits = steps.length + (history === 'merge' && steps.length > 0 ? 1 : 0);
  return { repo, history, head, steps, commits, alreadyApplied: false, leftOut };
}

/**
 * The integration branch's first-parent history from the run base is one merge per task (and the
 * fixes `watch` pushed on its pull request): each task becomes one step ending at its merge's tree,
 * so what lies between (the agents' attempts, merges of integration into a task) is never a commit
 * of its own. A task whose work came in with an earlier merge, or that changed nothing, makes none.
 */
async function landingSteps(session: RunSession, head: string): Promise<LandingStep[]> {
  const { state } = session;
  const git = new Git(state.repoRoot);
  const lines = async (args: string[]) => (await git.run(args)).stdout.split('\n').filter(Boolean);
  const history = await lines(['rev-list', '--first-parent', '--reverse', `${state.baseCommit}..${head}`]);
  const position = new Map(history.map((commit, i) => [commit, i]));
  const steps: LandingStep[] = [];
  let reached = -1;
  for (const id of state.integration.merged) {
    const task = state.tasks[id]!;
    const at = task.mergeCommit === undefined ? undefined : position.get(task.mergeCommit);
    if (at === undefined || at <= reached) continue;
    steps.push({ taskId: id, treeOf: task.mergeCommit!, message: taskCommits(session, task).squashed() });
    reached = at;
  }
  if (reached < history.length - 1) {
    steps.push({ taskId: null, treeOf: head, message: commitMessage(`${pullRequestTitle(state)}: fixes from its pull request`, { run: state.runId }) });
  }
  if (steps.length === 0) return [];
  const trees = await lines(['rev-parse', `${state.baseCommit}^{tree}`, ...steps.map((s) => `${s.treeOf}^{tree}`)]);
  return steps.filter((_, i) => trees[i + 1] !== trees[i]);
}
