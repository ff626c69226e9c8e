import { isWaitingForHuman } from '../domain/taskStates';
import { TaskloomError } from '../domain/taskloomError';
import { TASK_STATE_WORDS } from '../domain/stateWords';
import { splitNul } from '../workspace/gitQueries';
import { repoGit, type RepoLocation } from '../workspace/worktreeManager';
import type { RunSession } from '../session/runSession';

export interface RestoredSnapshot {
  taskId: string;
  attempt: number;
  worktree: string;
  /** The files put back (changed or deleted since the snapshot); files created since stay. */
  files: string[];
}

/**
 * Puts a task's worktree back as the actor snapshot of ledger entry `seq` holds it: what the
 * attempts since changed or deleted. Only for a task waiting for a person (nothing else touches its
 * worktree then), who goes on from there: Retry hands it to the agent, Resolve by Hand keeps it.
 */
export async function restoreActorSnapshot(session: RunSession, repo: RepoLocation, seq: number): Promise<RestoredSnapshot> {
  const decision = session.state.decisions.find((d) => d.seq === seq);
  if (decision?.fact.type !== 'actor_snapshot' || decision.taskId === undefined) {
    throw new TaskloomError('bad_input', `Ledger entry #${seq} of run ${session.runId} is not an actor snapshot`);
  }
  const task = session.task(decision.taskId);
  if (!isWaitingForHuman(task.state)) {
    throw new TaskloomError(
      'bad_input',
      `Task "${task.id}" is ${TASK_STATE_WORDS[task.state]}, so its worktree is not yours to change`,
      'A snapshot is restored into the worktree of a task that waits for you.',
    );
  }
  if (!task.worktreePath) throw new TaskloomError('bad_input', `Task "${task.id}" has no worktree any more`, 'Retry it to start again from its branch.');
  const { commit } = decision.fact;
  const git = repoGit(repo, task.worktreePath);
  // What the checkout puts back: the snapshot's files that are changed or gone (D, M, T), not those made since (A).
  const files = splitNul((await git.run(['diff', '--name-only', '-z', '--no-renames', '--diff-filter=DMT', '--no-ext-diff', '--no-textconv', commit, '--'])).stdout);
  if (files.length) await git.run(['checkout', commit, '--', '.']);
  return { taskId: task.id, attempt: decision.fact.attempt, worktree: task.worktreePath, files };
}
