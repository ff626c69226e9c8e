import type { PlanTask } from '../domain/plan';
import type { OverlapWait } from '../schedule/overlap';
import type { ActorFeedback } from '../loop/prompts';
import type { RunContext } from '../session/runContext';
import { taskCommits } from '../session/taskCommits';
import { taskPort } from '../session/taskEnv';
import { counted } from '../text/counted';

/** Where a task's loop begins: building, resolving the conflict its worktree holds, or gating what it already has. */
export interface TaskStart {
  path: string;
  first: 'build' | 'resolve' | 'gate';
  feedback?: ActorFeedback;
}

/**
 * A task that never passed its gate and critic starts building from the verified integration
 * head: it holds the run base and every merged dependency, and, when the task waited for an
 * overlapping task, that one's merge too. A try that was interrupted starts over from the commit
 * it started from, so a resumed run does the work the interrupted one was doing; the merge queue
 * reconciles it with what was merged since.
 */
export async function startBuilding(ctx: RunContext, task: PlanTask, waitedFor: readonly OverlapWait[]): Promise<TaskStart> {
  const { session, worktrees } = ctx;
  const handedBack = session.task(task.id).transitions.at(-1)?.event === 'HANDED_BACK';
  session.transition(task.id, 'BUILD_STARTED', handedBack ? 'taking back the work a person handed back' : startReason(task, waitedFor));
  const view = session.task(task.id);
  const earlier = view.baseCommit && (await worktrees.hasCommit(view.baseCommit)) ? view.baseCommit : undefined;
  const startCommit = earlier ?? (await ctx.integration.verifiedHead());
  const prepared = await worktrees.prepareTaskWorktree({
    taskId: task.id,
    startCommit,
    fresh: view.needsFreshWorktree || !view.worktreePath || !view.baseCommit,
  });
  session.emit({
    type: 'worktree_prepared',
    taskId: task.id,
    branch: prepared.branch,
    path: prepared.path,
    baseCommit: prepared.baseCommit,
    fresh: !prepared.reused,
    port: await taskPort(session.state, task.id),
    ...(prepared.recycled
      ? { recycledFrom: prepared.recycled.fromTaskId ?? '', ...(prepared.recycled.setupInputsChanged ? {} : { setupKept: true }) }
      : {}),
  });
  if (handedBack) {
    await takeBackFromPerson(ctx, task, prepared.path);
    return { path: prepared.path, first: 'gate' };
  }
  return { path: prepared.path, first: 'build' };
}

/**
 * The person's work is the attempt: what they left in the worktree is committed, and the gate and
 * the critic judge it as they would an actor's; a failure goes back to the actor, in the session
 * the person continued.
 */
async function takeBackFromPerson(ctx: RunContext, task: PlanTask, path: string): Promise<void> {
  const { session } = ctx;
  const attempt = session.task(task.id).attempt;
  const committed = await ctx.worktrees.commitAll(path, taskCommits(session, task).handedBack(attempt));
  if (committed) session.emit({ type: 'work_committed', taskId: task.id, attempt, ...committed });
  const changed = committed ? `${counted(committed.filesChanged.length, 'file')} changed since the agent stopped` : 'no file changed since the agent stopped';
  session.transition(task.id, 'BUILD_FINISHED', `handed back (${changed})`);
}

function startReason(task: PlanTask, waitedFor: readonly OverlapWait[]): string {
  const deps = task.dependsOn.length ? `${task.dependsOn.join(', ')} merged` : 'ready';
  if (waitedFor.length === 0) return task.dependsOn.length ? `dependencies merged (${task.dependsOn.join(', ')})` : 'ready to start';
  const after = waitedFor.map((w) => `after ${w.taskId}: both touch ${w.files.join(', ')}`).join('; ');
  return `${deps}; starts from the integration branch ${after}`;
}

/**
 * A task the merge queue sent back (or a person gave another try) takes the verified integration
 * head into its branch first. A conflict there is resolved by its actor (RESOLVING); a clean merge
 * leaves the actor to fix what the integration gate found, in a worktree that now reproduces it.
 */
export async function takeInIntegration(ctx: RunContext, task: PlanTask): Promise<TaskStart | undefined> {
  const { session } = ctx;
  const head = await ctx.integration.verifiedHead();
  const commits = taskCommits(session, task);
  const synced = await ctx.worktrees.syncWithIntegration(task.id, head, { workInProgress: commits.workInProgress(), merge: commits.takeInIntegration() });
  session.emit({
    type: 'task_synced',
    taskId: task.id,
    path: synced.path,
    from: synced.from,
    integrationCommit: head,
    conflicts: synced.conflicts,
    ...(synced.added ? { added: true } : {}),
    port: await taskPort(session.state, task.id),
  });
  const view = session.task(task.id);
  const limit = session.state.config.maxGateFixAttempts;
  if (synced.conflicts.length > 0) {
    if (view.state === 'INTEGRATION_FAILED') {
      session.emit({ type: 'merge_conflict', taskId: task.id, files: synced.conflicts });
      session.transition(task.id, 'MERGE_CONFLICTED', `taking in integration conflicts in ${synced.conflicts.join(', ')}`);
      if (session.task(task.id).mergeConflicts > limit) {
        session.transition(task.id, 'EXCEEDED_LIMIT', `merging still conflicts in ${synced.conflicts.join(', ')} after ${counted(limit, 'resolution')}`);
        return undefined;
      }
    }
    session.transition(task.id, 'RESOLVE_STARTED', `resolving the conflict with integration in ${synced.conflicts.join(', ')}`);
    return { path: synced.path, first: 'resolve' };
  }
  const problem = view.queueProblem;
  const feedback: ActorFeedback | undefined = problem?.kind === 'integration_gate' ? { kind: 'integration', gate: problem.gate } : undefined;
  if (view.state === 'MERGE_CONFLICT') {
    session.transition(task.id, 'RESOLVE_STARTED', 'taking in integration');
    session.transition(task.id, 'BUILD_FINISHED', `the integration branch merges cleanly now (${head.slice(0, 10)}); nothing left to resolve`);
    return { path: synced.path, first: 'gate' };
  }
  const event = view.state === 'INTEGRATION_FAILED' ? 'RETRY_BUILD' : 'BUILD_STARTED';
  const why = feedback ? 'fixing what the integration gate found, with integration merged in' : `integration ${head.slice(0, 10)} merged in cleanly`;
  session.transition(task.id, event, why);
  return { path: synced.path, first: 'build', ...(feedback ? { feedback } : {}) };
}
