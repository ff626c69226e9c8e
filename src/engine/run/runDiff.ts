import { existsSync } from 'node:fs';
import type { RunState } from '../domain/runState';
import { changedFilesBetween, type ChangedFile } from '../workspace/changedFiles';
import { WorkspaceError } from '../workspace/errors';
import { Git } from '../workspace/git';
import { resolveCommit, uncommittedPaths } from '../workspace/gitQueries';

export interface RunDiff {
  /** Commits compared, base → head. */
  base: string;
  head: string;
  files: ChangedFile[];
  /** Uncommitted paths in the worktree, which the diff leaves out. */
  uncommitted: string[];
}

/**
 * What a task changed (its base — the run base merged with its dependencies — to the tip of its
 * branch), or, without a task, what the run changed (run base to the integration branch).
 */
export async function diffOfRun(state: RunState, repoRoot: string, taskId?: string): Promise<RunDiff> {
  const git = new Git(repoRoot);
  let base: string;
  let branch: string;
  let worktree: string | undefined;
  if (taskId === undefined) {
    // Stopped (or still planning) before its integration branch was made: the run has changed nothing, which is no error.
    if (!state.integration.branch) return { base: state.baseCommit, head: state.baseCommit, files: [], uncommitted: [] };
    base = state.baseCommit;
    branch = state.integration.branch;
    worktree = state.integration.path;
  } else {
    const task = state.tasks[taskId];
    if (!task) throw new WorkspaceError(`Run ${state.runId} has no task "${taskId}"`, `Its tasks: ${state.taskOrder.join(', ') || 'none yet'}.`);
    if (!task.baseCommit || !task.branch) {
      throw new WorkspaceError(`Task "${taskId}" has not started yet, so it has no changes`, 'Its diff is there once its worktree is prepared.');
    }
    base = task.baseCommit;
    branch = task.branch;
    worktree = task.worktreePath;
  }
  // A completed run's task branches may be gone; its approved commit still holds what it changed.
  const head = (await resolveCommit(git, `refs/heads/${branch}`)) ?? (taskId !== undefined ? await approvedCommit(git, state, taskId) : null);
  if (!head) {
    throw new WorkspaceError(`Branch ${branch} does not exist`, `It was deleted; the ${taskId === undefined ? 'run' : 'task'} has nothing to compare.`);
  }
  const files = await changedFilesBetween(git, base, head);
  const uncommitted = worktree && existsSync(worktree) ? await uncommittedPaths(new Git(worktree)) : [];
  return { base, head, files, uncommitted };
}

async function approvedCommit(git: Git, state: RunState, taskId: string): Promise<string | null> {
  const green = state.tasks[taskId]?.greenCommit;
  return green ? resolveCommit(git, green) : null;
}

/** What changed from `base` to `head` (two commits of the repository), as the diff editor shows it. */
export async function diffBetween(repoRoot: string, base: string, head: string): Promise<RunDiff> {
  const git = new Git(repoRoot);
  for (const commit of [base, head]) {
    if (!(await resolveCommit(git, commit))) {
      throw new WorkspaceError(`Commit ${commit.slice(0, 10)} is no longer in the repository`, 'It may belong to a run that was discarded or collected.');
    }
  }
  return { base, head, files: await changedFilesBetween(git, base, head), uncommitted: [] };
}
