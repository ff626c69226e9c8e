import { join } from 'node:path';
import type { PlanTask } from '../domain/plan';
import { resolvePrompt } from '../loop/resolutionPrompts';
import { clipMiddle } from '../text/clip';
import { readTextOrReason } from '../workspace/readTextOrReason';
import { actorSnapshotRef, snapshotWorktree } from '../workspace/actorSnapshot';
import { callAgent } from '../session/agentCall';
import type { RunContext } from '../session/runContext';
import { agentLabel, taskCommits } from '../session/taskCommits';
import { handleAgentFailure, stoppedByBudget, type StepOutcome } from './stepOutcome';

/** What a resolver is shown of each file and side, at most. */
const FILE_LIMIT = 20_000;
const DIFF_LIMIT = 40_000;

/**
 * The actor resolves the conflict its worktree is in the middle of (see syncWithIntegration):
 * it sees the conflicted files with their markers, its own task and the merged tasks it meets,
 * and each side's diff. Taskloom then commits the result, which completes the merge; the gate
 * and the critic check it like any change.
 */
export async function resolveStep(ctx: RunContext, task: PlanTask, path: string): Promise<StepOutcome> {
  const { session } = ctx;
  const view = session.task(task.id);
  const resolution = view.resolution!;
  if (stoppedByBudget(ctx, task.id)) return { next: 'stop' };
  const ref = actorSnapshotRef(session.state.runId, task.id, view.attempt);
  const snapshot = await snapshotWorktree(ctx.worktrees.repo, path, ref, `taskloom(${task.id}): snapshot before resolving attempt ${view.attempt}`);
  session.emit({ type: 'actor_snapshot', taskId: task.id, attempt: view.attempt, commit: snapshot.commit, ref: snapshot.ref });

  const sides = await ctx.worktrees.conflictSides(path, resolution.ours, resolution.theirs, resolution.files);
  const theirTasks = session.state.integration.merged
    .map((id) => session.task(id))
    .filter((t) => t.changedFiles.some((f) => resolution.files.includes(f)))
    .map((t) => session.state.plan.tasks.find((p) => p.id === t.id)!);
  const prompt = resolvePrompt({
    goal: session.state.goal,
    task,
    files: resolution.files.map((file) => ({ path: file, text: clipMiddle(readTextOrReason(join(path, file)), FILE_LIMIT) })),
    ours: clipMiddle(sides.ours, DIFF_LIMIT),
    theirs: theirTasks,
    theirsDiff: clipMiddle(sides.theirs, DIFF_LIMIT),
    ...(view.humanNote ? { humanNote: view.humanNote } : {}),
  });
  const result = await callAgent(ctx, {
    role: 'actor',
    purpose: 'resolve',
    taskId: task.id,
    attempt: view.resolutions,
    prompt,
    cwd: path,
    access: 'workspace-write',
    allowedCommands: [],
  });
  if (!handleAgentFailure(ctx, task.id, 'actor', result)) return { next: 'stop' };
  const committed = await ctx.worktrees.commitAll(path, taskCommits(session, task).resolution(resolution.files, agentLabel(result.agent, result.model)));
  if (committed) session.emit({ type: 'work_committed', taskId: task.id, attempt: view.attempt, commit: committed.commit, filesChanged: resolution.files });
  session.transition(task.id, 'BUILD_FINISHED', `actor resolved the conflict in ${resolution.files.join(', ')}`);
  return { next: 'continue' };
}
