import type { ApplyHistory } from '../domain/events';
import type { RunSession } from '../session/runSession';
import { commitMessage } from '../workspace/commitMessage';
import { Git } from '../workspace/git';
import { fastForwardCurrentBranch, mergeIntoCurrentBranch, type MergedIntoBranch } from '../workspace/mergeIntoCurrentBranch';
import { squashOnto } from '../workspace/squashOnto';
import { planApply, type ApplyPlan } from './applyPlan';

export interface ApplyOutcome extends MergedIntoBranch {
  history: ApplyHistory;
  /** Commits the branch received, counted on it (`git rev-list --count before..after`). */
  commits: number;
  /** It was applied before (or merged by hand): nothing changed now. */
  alreadyApplied: boolean;
  leftOut: ApplyPlan['leftOut'];
}

/**
 * Applies a completed run to the branch checked out in `cwd` (refused on a dirty tree), each task as
 * one clean commit — its title, its trailers, the repository's identity — holding what the
 * integration gate passed on, never an agent's draft: `merge` joins those commits, built on the run
 * base, to the branch with one merge commit; `squash` puts them on the branch itself. The drafts
 * stay on the run's branches and refs until it is discarded. Records the apply, so a second one says so.
 */
export async function applyRun(session: RunSession, cwd: string, history: ApplyHistory): Promise<ApplyOutcome> {
  const { state } = session;
  const plan = await planApply(session, cwd, history);
  const { repo, leftOut } = plan;
  if (plan.alreadyApplied) return { branch: repo.headRef, commit: repo.headCommit, files: [], history, commits: 0, alreadyApplied: true, leftOut };
  let result: MergedIntoBranch;
  if (history === 'merge') {
    const line = await squashOnto(repo, state.baseCommit, plan.steps);
    const body = plan.steps.flatMap((s) => (s.taskId ? [`- ${state.tasks[s.taskId]!.title} (${s.taskId})`] : [])).join('\n');
    result = await mergeIntoCurrentBranch(repo, line, commitMessage(state.goal, { run: state.runId }, body));
  } else {
    result = await fastForwardCurrentBranch(repo, await squashOnto(repo, state.baseCommit, plan.steps, repo.headCommit));
  }
  const counted = await new Git(repo.root).run(['rev-list', '--count', `${repo.headCommit}..${result.commit}`]);
  const commits = Number(counted.stdout.trim());
  session.emit({ type: 'run_applied', branch: result.branch, commit: result.commit, history, commits });
  return { ...result, history, commits, alreadyApplied: false, leftOut };
}
