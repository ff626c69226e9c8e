import { assertHumanAction } from '../domain/humanActions';
import type { SandboxContext } from '../sandbox/taskLauncher';
import type { GateSummary } from '../domain/runState';
import type { IntegrationBranch } from '../workspace/integrationBranch';
import { leftoverConflictMarkers } from '../workspace/conflictMarkers';
import type { WorktreeManager } from '../workspace/worktreeManager';
import { runProjectGate } from '../session/projectGate';
import type { RunSession } from '../session/runSession';
import { queueForMerge } from './taskLoop';
import { taskCommits } from '../session/taskCommits';

export interface HandResolutionParts {
  session: RunSession;
  worktrees: WorktreeManager;
  integration: IntegrationBranch;
}

export interface HandResolution {
  /** The task's worktree, with integration merged in (and left conflicted, when it conflicts). */
  path: string;
  /** Files holding conflict markers; empty when the merge is clean (an integration gate failure to fix). */
  conflicts: string[];
  /** The three sides of the merge, for a merge editor: the task's work, the integration commit, their merge base. */
  ours: string;
  theirs: string;
  base: string;
}

/**
 * A person takes over a task the merge queue sent back: its worktree takes in the verified
 * integration head and is left for them as it merges (with the markers in the conflicted files).
 * `continueHandResolution` checks their result with the gate and queues it for merge.
 */
export async function startHandResolution(parts: HandResolutionParts, taskId: string): Promise<HandResolution> {
  const { session, worktrees, integration } = parts;
  assertHumanAction(session.task(taskId), 'resolve');
  const prepared = await integration.prepare(session.state.baseCommit);
  const commits = taskCommits(session, session.state.plan.tasks.find((t) => t.id === taskId)!);
  const synced = await worktrees.syncWithIntegration(taskId, prepared.head, { workInProgress: commits.workInProgress(), merge: commits.takeInIntegration() });
  session.emit({
    type: 'task_synced',
    taskId,
    path: synced.path,
    from: synced.from,
    integrationCommit: prepared.head,
    conflicts: synced.conflicts,
    ...(synced.added ? { added: true } : {}),
  });
  session.emit({ type: 'human_decision', taskId, action: 'resolve' });
  const what = synced.conflicts.length ? `conflicts in ${synced.conflicts.join(', ')}` : 'integration merged in; fix what the integration gate found';
  session.transition(taskId, 'HAND_RESOLVE_STARTED', `being resolved by hand in ${synced.path}: ${what}`);
  const base = await worktrees.mergeBase(synced.from, prepared.head);
  return { path: synced.path, conflicts: synced.conflicts, ours: synced.from, theirs: prepared.head, base };
}

export type ContinueOutcome = { passed: true } | { passed: false; gate: GateSummary };

/**
 * The person says their resolution is done: no conflict marker may be left, the result is
 * committed (completing the merge) and the task's gate runs on it. When it passes the task is
 * GREEN and queued; otherwise it stays with them, with the gate's failure.
 */
export async function continueHandResolution(parts: HandResolutionParts & { sandbox: SandboxContext }, taskId: string, signal: AbortSignal): Promise<ContinueOutcome> {
  const { session, worktrees, sandbox } = parts;
  const task = session.task(taskId);
  assertHumanAction(task, 'continue');
  const path = worktrees.taskPath(taskId);
  const markers = leftoverConflictMarkers(path, task.resolution?.files ?? []);
  let commands;
  if (markers.length) {
    commands = [{ command: 'no conflict markers left (checked by Taskloom)', exitCode: 1, timedOut: false, durationMs: 0, output: markers.join('\n') }];
  } else {
    const committed = await worktrees.commitAll(path, taskCommits(session, session.state.plan.tasks.find((t) => t.id === taskId)!).resolvedByHand());
    if (committed) session.emit({ type: 'work_committed', taskId, attempt: task.attempt, ...committed });
    // A worktree added again for the person has had no setup: it runs first, as part of this gate.
    commands = (await runProjectGate({ session, signal, sandbox }, path, { taskId, setUp: task.needsSetup === true })).commands;
  }
  const passed = commands.every((c) => c.exitCode === 0);
  session.emit({ type: 'gate_result', taskId, attempt: task.attempt, passed, commands });
  if (!passed) return { passed: false, gate: session.task(taskId).lastGate! };
  session.emit({ type: 'human_decision', taskId, action: 'continue' });
  session.transition(taskId, 'HAND_RESOLVED', 'resolved by hand; the gate passed on the result');
  await queueForMerge({ session, worktrees }, taskId);
  return { passed: true };
}
