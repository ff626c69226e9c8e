import { isShutdown } from './engineShutdown';
import type { RunnerResult } from '../agents/runner';
import { budgetStop } from '../domain/budget';
import type { PlanTask } from '../domain/plan';
import { WorkspaceError } from '../workspace/errors';
import { actorSnapshotRef, snapshotWorktree } from '../workspace/actorSnapshot';
import { blockingFindings, findingFingerprint } from '../domain/verdict';
import { actorAllowedCommands } from '../domain/actorCommands';
import { CRITIC_VERDICT_JSON_SCHEMA, parseCriticVerdict } from '../loop/criticRubric';
import { actorPrompt, criticPrompt, VERDICT_REPAIR_PROMPT, type ActorFeedback } from '../loop/prompts';
import { callAgent, describeFailure } from './agentCall';
import { runProjectGate } from './projectGate';
import type { RunContext } from './runContext';

type StepOutcome = { next: 'continue'; feedback?: ActorFeedback } | { next: 'stop' };
const STOP: StepOutcome = { next: 'stop' };

/**
 * One task from PENDING to an end state: actor → gate → critic, looping on gate failures and
 * requested changes within the configured limits. Any exception ends in NEEDS_HUMAN for this
 * task only; the run goes on.
 */
export async function runTask(ctx: RunContext, taskId: string): Promise<void> {
  const { session } = ctx;
  try {
    const planTask = session.state.plan.tasks.find((t) => t.id === taskId)!;
    session.transition(taskId, 'BUILD_STARTED', 'dependencies are ready');
    const worktree = await prepareWorktree(ctx, planTask);
    let feedback: ActorFeedback | undefined;
    for (;;) {
      if (ctx.signal.aborted) {
        cancel(ctx, taskId, 'the run was cancelled');
        return;
      }
      const built = await buildStep(ctx, planTask, worktree, feedback);
      if (built.next === 'stop') return;
      const gated = await gateStep(ctx, taskId, worktree);
      if (gated.next === 'stop') return;
      if (gated.feedback) {
        feedback = gated.feedback;
        continue;
      }
      const reviewed = await reviewStep(ctx, planTask, worktree);
      if (reviewed.next === 'stop') return;
      feedback = reviewed.feedback;
    }
  } catch (error) {
    const reason = error instanceof WorkspaceError ? `${error.message} (${error.hint})` : `internal error: ${(error as Error).message}`;
    if (!session.transitionIfLegal(taskId, 'ENGINE_ERROR', reason)) {
      session.emit({ type: 'warning', taskId, message: reason });
    }
  }
}

interface Worktree {
  path: string;
  baseCommit: string;
}

async function prepareWorktree(ctx: RunContext, task: PlanTask): Promise<Worktree> {
  const { session, worktrees } = ctx;
  const view = session.task(task.id);
  const fresh = view.needsFreshWorktree || !view.worktreePath || !view.baseCommit;
  const prepared = await worktrees.prepareTaskWorktree({
    taskId: task.id,
    runBaseCommit: session.state.baseCommit,
    dependencyBranches: task.dependsOn.map((dep) => worktrees.taskBranch(dep)),
    fresh,
  });
  session.emit({
    type: 'worktree_prepared',
    taskId: task.id,
    branch: prepared.branch,
    path: prepared.path,
    baseCommit: prepared.baseCommit,
    fresh: !prepared.reused,
  });
  return { path: prepared.path, baseCommit: prepared.baseCommit };
}

async function buildStep(ctx: RunContext, task: PlanTask, worktree: Worktree, feedback?: ActorFeedback): Promise<StepOutcome> {
  const { session } = ctx;
  const view = session.task(task.id);
  if (stoppedByBudget(ctx, task.id)) return STOP;
  await snapshotBeforeActor(ctx, task.id, view.attempt, worktree);
  const result = await callAgent(ctx, {
    role: 'actor',
    taskId: task.id,
    attempt: view.attempt,
    prompt: actorPrompt(task, session.state.goal, feedback, view.humanNote),
    cwd: worktree.path,
    access: 'workspace-write',
    allowedCommands: actorAllowedCommands(ctx.session.state.config),
    // Retries continue the actor's conversation, so the task's context is not paid for again.
    ...(view.attempt > 1 && view.actorSessionId ? { resumeSessionId: view.actorSessionId } : {}),
  });
  if (!handleAgentFailure(ctx, task.id, 'actor', result)) return STOP;
  const committed = await ctx.worktrees.commitAll(worktree.path, `taskloom(${task.id}): attempt ${view.attempt}`);
  if (committed) {
    session.emit({ type: 'work_committed', taskId: task.id, attempt: view.attempt, ...committed });
  }
  const changed = committed ? `${committed.filesChanged.length} file(s) changed` : 'no file changes';
  session.transition(task.id, 'BUILD_FINISHED', `actor finished attempt ${view.attempt} (${changed})`);
  return { next: 'continue' };
}

/**
 * Records the worktree as it is before the actor touches it (see snapshotWorktree), so whatever the
 * actor destroys can be restored from the ledger. A failed snapshot ends the task (ENGINE_ERROR)
 * rather than letting the actor work without one.
 */
async function snapshotBeforeActor(ctx: RunContext, taskId: string, attempt: number, worktree: Worktree): Promise<void> {
  const ref = actorSnapshotRef(ctx.session.state.runId, taskId, attempt);
  const snapshot = await snapshotWorktree(worktree.path, ref, `taskloom(${taskId}): snapshot before attempt ${attempt}`);
  ctx.session.emit({ type: 'actor_snapshot', taskId, attempt, commit: snapshot.commit, ref: snapshot.ref });
}

async function gateStep(ctx: RunContext, taskId: string, worktree: Worktree): Promise<StepOutcome> {
  const { session } = ctx;
  const { config } = session.state;
  const attempt = session.task(taskId).attempt;
  const gate = await runProjectGate(ctx, worktree.path);
  session.emit({ type: 'gate_result', taskId, attempt, passed: gate.passed, commands: gate.commands });
  if (gate.cancelled) return cancel(ctx, taskId, 'cancelled while the gate ran');
  if (gate.stuck) {
    session.transition(taskId, 'STUCK_ABORTED', `gate showed no output for ${config.stuckThresholdSeconds}s and was stopped`);
    return STOP;
  }
  if (gate.passed) {
    session.transition(taskId, 'MECHANICAL_PASSED', gatePassedReason(config.gateCommands));
    return { next: 'continue' };
  }
  const failed = gate.commands.find((c) => c.exitCode !== 0);
  const why = failed ? `\`${failed.command}\` ${failed.timedOut ? 'timed out' : `exited ${failed.exitCode}`}` : 'gate failed';
  session.transition(taskId, 'MECHANICAL_FAILED', why);
  if (session.task(taskId).gateFailures >= config.maxGateFixAttempts) {
    session.transition(taskId, 'EXCEEDED_LIMIT', `gate still failing after ${config.maxGateFixAttempts} attempt(s): ${why}`);
    return STOP;
  }
  session.transition(taskId, 'RETRY_BUILD', `retrying with the gate output (${why})`);
  const lastGate = session.task(taskId).lastGate!;
  return { next: 'continue', feedback: { kind: 'gate', gate: lastGate } };
}

const gatePassedReason = (commands: string[]): string =>
  commands.length ? `gate passed: ${commands.join(', ')}` : 'no gate commands configured; nothing to check';

async function reviewStep(ctx: RunContext, task: PlanTask, worktree: Worktree): Promise<StepOutcome> {
  const { session } = ctx;
  const { config } = session.state;
  const review = session.task(task.id).reviewCycles + 1;
  const diff = await ctx.worktrees.diffFromBase(worktree.path, worktree.baseCommit);
  const prompt = criticPrompt(task, diff, session.task(task.id).lastGate);
  const ask = (text: string, resumeSessionId?: string) =>
    callAgent(ctx, {
      role: 'critic',
      taskId: task.id,
      attempt: review,
      prompt: text,
      cwd: worktree.path,
      access: 'read-only',
      outputSchema: CRITIC_VERDICT_JSON_SCHEMA,
      ...(resumeSessionId ? { resumeSessionId } : {}),
    });

  if (stoppedByBudget(ctx, task.id)) return STOP;
  let result = await ask(prompt);
  if (result.status !== 'ok') {
    if (result.status === 'agent_error' && config.allowUnverified) {
      session.transition(task.id, 'CRITIC_UNAVAILABLE', describeFailure('critic', result, config.stuckThresholdSeconds));
      return STOP;
    }
    handleAgentFailure(ctx, task.id, 'critic', result);
    return STOP;
  }
  let verdict = parseCriticVerdict(result.structured, result.text);
  if (!verdict) {
    if (stoppedByBudget(ctx, task.id)) return STOP;
    result = await ask(`${prompt}\n\n${VERDICT_REPAIR_PROMPT}`, result.sessionId);
    if (!handleAgentFailure(ctx, task.id, 'critic', result)) return STOP;
    verdict = parseCriticVerdict(result.structured, result.text);
  }
  if (!verdict) {
    session.transition(task.id, 'MALFORMED_GIVEUP', `critic gave no valid verdict after one repair attempt: ${excerpt(result.text)}`);
    return STOP;
  }
  const blocking = blockingFindings(verdict);
  session.emit({ type: 'critic_verdict', taskId: task.id, review, verdict, blocking: blocking.length });
  if (blocking.length === 0) {
    const nits = verdict.findings.length ? ` (${verdict.findings.length} non-blocking finding(s))` : '';
    session.transition(task.id, 'CRITIC_GREEN', `critic: ${verdict.summary}${nits}`);
    return STOP;
  }
  session.transition(task.id, 'CRITIC_CHANGES_REQUIRED', `critic: ${verdict.summary} (${blocking.length} blocking)`);
  const repeats = session.task(task.id).findingRepeats;
  const stubborn = blocking.find((f) => (repeats[findingFingerprint(f)] ?? 0) >= SAME_FINDING_LIMIT);
  if (stubborn) {
    session.transition(
      task.id,
      'EXCEEDED_LIMIT',
      `the critic raised the same finding ${SAME_FINDING_LIMIT} times though the actor was asked to fix it twice: ${stubborn.file ? `${stubborn.file}: ` : ''}${stubborn.message}`,
    );
    return STOP;
  }
  if (session.task(task.id).reviewCycles >= config.maxReviewCycles) {
    session.transition(task.id, 'EXCEEDED_LIMIT', `critic still requires changes after ${config.maxReviewCycles} review(s)`);
    return STOP;
  }
  session.transition(task.id, 'RETRY_BUILD', `retrying with ${blocking.length} critic finding(s)`);
  return { next: 'continue', feedback: { kind: 'critic', summary: verdict.summary, findings: blocking } };
}

/** A blocking finding seen in this many reviews (the original and after two fix attempts) escalates to a human. */
const SAME_FINDING_LIMIT = 3;

/** Ends the task before an agent call that a budget does not allow; true when it did. */
function stoppedByBudget(ctx: RunContext, taskId: string): boolean {
  const reason = budgetStop(ctx.session.state, taskId);
  if (reason) ctx.session.transition(taskId, 'EXCEEDED_LIMIT', `${reason}; no further agent call was made`);
  return reason !== undefined;
}

/** Moves the task to the state a failed call calls for; true when the call succeeded. */
function handleAgentFailure(ctx: RunContext, taskId: string, role: string, result: RunnerResult): boolean {
  const { session } = ctx;
  const reason = describeFailure(role, result, session.state.config.stuckThresholdSeconds);
  switch (result.status) {
    case 'ok':
      return true;
    case 'cancelled':
      cancel(ctx, taskId, reason);
      return false;
    case 'quota':
      session.transition(taskId, 'QUOTA_EXHAUSTED', reason);
      ctx.pause(`${role} of "${taskId}" hit a usage quota or rate limit`);
      return false;
    case 'idle_timeout':
      session.transition(taskId, 'STUCK_ABORTED', reason);
      return false;
    default:
      session.transition(taskId, 'AGENT_FAILED', reason);
      return false;
  }
}

function cancel(ctx: RunContext, taskId: string, reason: string): StepOutcome {
  const why = isShutdown(ctx.signal) ? `interrupted: ${(ctx.signal.reason as Error).message} (resume restarts it)` : reason;
  ctx.session.transition(taskId, 'CANCELLED', why);
  return STOP;
}

/** The start and the end of an answer: where an agent explains itself, and where it stopped. */
const excerpt = (text: string): string =>
  text.length > 600 ? `${text.slice(0, 300)} … ${text.slice(-300)}` : text || '(empty answer)';
