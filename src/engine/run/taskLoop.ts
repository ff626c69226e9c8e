import type { PlanTask } from '../domain/plan';
import { errorText, TaskloomError } from '../domain/taskloomError';
import { actorSnapshotRef, snapshotWorktree } from '../workspace/actorSnapshot';
import { leftoverConflictMarkers } from '../workspace/conflictMarkers';
import { blockingFindings, findingFingerprint } from '../domain/verdict';
import { actorAllowedCommands } from '../domain/actorCommands';
import type { GateCommandResult, RunnerStatus } from '../domain/events';
import type { GateSummary } from '../domain/runState';
import { CRITIC_VERDICT_JSON_SCHEMA, parseCriticVerdict } from '../loop/criticRubric';
import { actorPrompt, criticPrompt, VERDICT_REPAIR_PROMPT, type ActorFeedback } from '../loop/prompts';
import type { OverlapWait } from '../schedule/overlap';
import { isMovingOn } from '../domain/taskStates';
import { callAgent, describeFailure } from '../session/agentCall';
import { runProjectGate } from '../session/projectGate';
import { gateJudging } from '../session/baseline';
import { gateKey, servedFromCache } from '../session/gateCache';
import { undecidedBaselineFailures } from '../domain/gateProjection';
import type { GateResult } from '../gate/runGate';
import { resolveStep } from './resolveStep';
import type { RunContext } from '../session/runContext';
import { agentLabel, taskCommits } from '../session/taskCommits';
import { cancel, handleAgentFailure, STOP, stoppedByBudget, stoppedMidStep, type StepOutcome } from './stepOutcome';
import { startBuilding, takeInIntegration, type TaskStart } from './taskStart';
import { setUpWorktree } from './worktreeSetup';
import { buildCandidates, runsAsCandidates } from './candidates';
import { liveMessages, takeWaitingMessages } from '../session/taskMessages';
import { sendsBackForMessages } from './messagesAfterTurn';
import { holdSensitiveChanges, unreleasedSensitiveChanges } from '../session/sensitiveHold';
import { counted } from '../text/counted';
import { baselineChoiceWords, baseName, unchangedTreeWords } from '../text/gateWords';

/**
 * One task from where it stands (PENDING, or sent back by the merge queue) to GREEN, back in the
 * queue, or an end: actor (or resolver) → gate → critic, looping on gate failures and requested
 * changes within the configured limits. Any exception ends in NEEDS_HUMAN for this task only,
 * and the run goes on, unless the run was being stopped: then it is the stop's (see stoppedMidStep).
 * Every step runs on the task's own signal, so a person can stop this task alone (RunControl).
 */
export async function runTask(runCtx: RunContext, taskId: string, waitedFor: readonly OverlapWait[] = []): Promise<void> {
  const ctx: RunContext = { ...runCtx, signal: runCtx.control.taskSignal(taskId) };
  try {
    await workOnTask(ctx, taskId, waitedFor);
  } finally {
    runCtx.control.release(taskId);
  }
}

async function workOnTask(ctx: RunContext, taskId: string, waitedFor: readonly OverlapWait[]): Promise<void> {
  const { session } = ctx;
  try {
    const planTask = session.state.plan.tasks.find((t) => t.id === taskId)!;
    const view = session.task(taskId);
    // Work that passed its gate and critic before is never started over: it takes in integration.
    const start: TaskStart | undefined =
      view.greenCommit || view.queueProblem ? await takeInIntegration(ctx, planTask) : await startBuilding(ctx, planTask, waitedFor);
    if (!start) return;
    if (!(await setUpWorktree(ctx, taskId, start.path))) return;
    let { feedback } = start;
    let step: TaskStart['first'] = start.first;
    if (step === 'build' && runsAsCandidates(ctx, planTask)) {
      const built = await buildCandidates(ctx, planTask);
      if (built.next === 'stop') return;
      step = 'gate';
    }
    for (;;) {
      if (ctx.signal.aborted) {
        cancel(ctx, taskId, 'the run was cancelled');
        return;
      }
      if (step !== 'gate') {
        const built = step === 'resolve' ? await resolveStep(ctx, planTask, start.path) : await buildStep(ctx, planTask, start.path, feedback);
        if (built.next === 'stop') return;
      }
      step = 'build';
      const gated = await gateStep(ctx, taskId, start.path);
      if (gated.next === 'stop') return;
      if (gated.feedback) {
        feedback = gated.feedback;
        continue;
      }
      const reviewed = await reviewStep(ctx, planTask, start.path);
      if (reviewed.next === 'stop') return;
      feedback = reviewed.feedback;
    }
  } catch (error) {
    if (stoppedMidStep(ctx, taskId)) return;
    const reason = error instanceof TaskloomError ? errorText(error) : `internal error: ${(error as Error).message}`;
    if (!session.transitionIfLegal(taskId, 'ENGINE_ERROR', reason)) {
      session.emit({ type: 'warning', taskId, message: reason });
    }
  }
}

async function buildStep(ctx: RunContext, task: PlanTask, path: string, feedback?: ActorFeedback): Promise<StepOutcome> {
  const { session } = ctx;
  const view = session.task(task.id);
  if (stoppedByBudget(ctx, task.id)) return STOP;
  await snapshotBeforeActor(ctx, task.id, view.attempt, path);
  const heard = takeWaitingMessages(ctx, task.id, view.attempt);
  const result = await callAgent(ctx, {
    role: 'actor',
    taskId: task.id,
    attempt: view.attempt,
    prompt: actorPrompt(task, session.state.goal, feedback, view.humanNote, heard),
    heard,
    messages: liveMessages(ctx, task.id, view.attempt),
    cwd: path,
    access: 'workspace-write',
    allowedCommands: actorAllowedCommands(ctx.session.state.config),
    // Retries continue the actor's conversation, so the task's context is not paid for again.
    ...(resumableActorSession(ctx, task.id) ? { resumeSessionId: view.actorSessionId } : {}),
  });
  // A person who stopped the actor finds what it had done so far, as after a failure.
  if (stopsForAPerson(result.status) || ctx.control.stoppedBy(task.id) !== undefined) await keepWorkInProgress(ctx, task, path);
  if (!handleAgentFailure(ctx, task.id, 'actor', result)) return STOP;
  const committed = await ctx.worktrees.commitAll(path, taskCommits(session, task).attempt(view.attempt, agentLabel(result.agent, result.model)));
  if (committed) {
    session.emit({ type: 'work_committed', taskId: task.id, attempt: view.attempt, ...committed });
    warnAboutOverlaps(ctx, task.id, committed.filesChanged);
  }
  const changed = committed ? `${counted(committed.filesChanged.length, 'file')} changed` : 'no file changes';
  session.transition(task.id, 'BUILD_FINISHED', `actor finished attempt ${view.attempt} (${changed})`);
  return { next: 'continue' };
}

/** An actor call that ended so: the task then waits for a person (a cancel, a pause or a shutdown does not). */
const stopsForAPerson = (status: RunnerStatus): boolean => status !== 'ok' && status !== 'cancelled' && status !== 'quota';

/**
 * What an actor that failed (crashed, went quiet, gave up) left in the worktree is the task's work
 * in progress: committed, so its diff shows it and the task's changed files say whether there is
 * work a person could accept (domain/humanActions.ts) — none, and Accept is not offered.
 */
async function keepWorkInProgress(ctx: RunContext, task: PlanTask, path: string): Promise<void> {
  const { session } = ctx;
  try {
    const committed = await ctx.worktrees.commitAll(path, taskCommits(session, task).workInProgress());
    if (committed) session.emit({ type: 'work_committed', taskId: task.id, attempt: session.task(task.id).attempt, ...committed });
  } catch (error) {
    // Left as it is (a crash may have left git mid-way): Retry starts from the worktree all the same.
    session.emit({ type: 'warning', taskId: task.id, message: `what the actor left could not be committed: ${(error as Error).message}` });
  }
}

/** The task's actor session can be continued: there is one, and the agent that holds it is the one called now. */
function resumableActorSession(ctx: RunContext, taskId: string): boolean {
  const view = ctx.session.task(taskId);
  if (view.attempt <= 1 || !view.actorSessionId) return false;
  const agent = ctx.agents.forCall('actor', taskId).runner.name;
  return (view.actorSessionAgent ?? agent) === agent;
}

/**
 * Records the worktree as it is before the actor touches it (see snapshotWorktree), so whatever the
 * actor destroys can be restored from the ledger. A failed snapshot ends the task (ENGINE_ERROR)
 * rather than letting the actor work without one.
 */
async function snapshotBeforeActor(ctx: RunContext, taskId: string, attempt: number, path: string): Promise<void> {
  const ref = actorSnapshotRef(ctx.session.state.runId, taskId, attempt);
  const snapshot = await snapshotWorktree(ctx.worktrees.repo, path, ref, `taskloom(${taskId}): snapshot before attempt ${attempt}`);
  ctx.session.emit({ type: 'actor_snapshot', taskId, attempt, commit: snapshot.commit, ref: snapshot.ref });
}

/**
 * Live warning (in 'serialize' and 'warn' modes): the task's committed change touches files that
 * another task changed too, one running beside it or merged since it started (work it was built
 * on does not count). Said once per pair of tasks and file.
 */
function warnAboutOverlaps(ctx: RunContext, taskId: string, files: string[]): void {
  const { session } = ctx;
  if ((session.state.config.overlap ?? 'off') === 'off') return;
  const task = session.task(taskId);
  const warned = new Map(task.overlapWarnings.map((w) => [w.otherTaskId, new Set(w.files)]));
  for (const other of Object.values(session.state.tasks)) {
    const beside = isMovingOn(other.state) && other.state !== 'PENDING';
    const mergedSince = other.state === 'MERGED' && !task.builtOnMerged.includes(other.id);
    if (other.id === taskId || !(beside || mergedSince)) continue;
    const shared = files.filter((f) => other.changedFiles.includes(f) && !warned.get(other.id)?.has(f));
    if (shared.length) session.emit({ type: 'overlap_detected', taskId, otherTaskId: other.id, files: shared });
  }
}

async function gateStep(ctx: RunContext, taskId: string, path: string): Promise<StepOutcome> {
  const { session } = ctx;
  const { config } = session.state;
  const attempt = session.task(taskId).attempt;
  const tree = await ctx.worktrees.headTree(path);
  const previous = session.task(taskId).lastGate;
  if (previous && !previous.passed && previous.tree === tree) return unchangedAttempt(ctx, taskId, previous, tree);
  const markers = markerCheck(path, session.task(taskId).resolution?.files);
  let gate: GateResult;
  let cache: { key?: string; cachedFrom?: { seq: number; taskId: string | null; attempt: number } } = {};
  if (markers) gate = { passed: false, stuck: false, cancelled: false, commands: [markers] };
  else {
    const view = session.task(taskId);
    const changedFrom = config.gate?.affectedOnly ? (view.resolution?.theirs ?? view.baseCommit) : undefined;
    const judging = await gateJudging(ctx, changedFrom ? await ctx.worktrees.changedPaths(path, changedFrom) : undefined);
    const held = undecidedBaselineFailures(session.state);
    if (held.length) return holdForBaselineChoice(ctx, held);
    const key = gateKey(ctx, tree, { kind: 'gate', ...(changedFrom ? { changedFrom } : {}) });
    const served = servedFromCache(ctx, key);
    cache = { key, ...(served ? { cachedFrom: served.cachedFrom } : {}) };
    gate = served?.gate ?? (await runProjectGate(ctx, path, { taskId, judging }));
  }
  // A cancelled or stuck gate says nothing about the tree, so it carries none and is never a reason to skip.
  const settled = !gate.cancelled && !gate.stuck;
  session.emit({ type: 'gate_result', taskId, attempt, passed: gate.passed, commands: gate.commands, ...(settled ? { tree, ...cache } : {}) });
  if (gate.cancelled) return cancel(ctx, taskId, 'cancelled while the gate ran');
  if (gate.sandboxFailure) {
    session.transition(taskId, 'ENGINE_ERROR', `the gate did not run: ${gate.sandboxFailure} — Doctor checks the sandbox; then retry`);
    return STOP;
  }
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
    session.transition(taskId, 'EXCEEDED_LIMIT', `gate still failing after ${counted(config.maxGateFixAttempts, 'attempt')}: ${why}`);
    return STOP;
  }
  session.transition(taskId, 'RETRY_BUILD', `retrying with the gate output (${why})`);
  const lastGate = session.task(taskId).lastGate!;
  return { next: 'continue', feedback: { kind: 'gate', gate: lastGate } };
}

/**
 * The base fails a gate command where no runner says which tests: whether that counts is the
 * user's call. The run pauses (no task starts; this one stops before its gate, its work
 * committed), its reason naming the three ways on in words every front door reads true (no
 * command line: the CLI and the editor each offer theirs); resuming with the choice or
 * cancelling answers.
 */
function holdForBaselineChoice(ctx: RunContext, commands: string[]): StepOutcome {
  ctx.pause(baselineChoiceWords(commands, baseName(ctx.session.state)));
  return STOP;
}

/**
 * The attempt's tree is one the gate already failed on (the actor changed nothing, or a restarted
 * attempt made the same files): running the gate again would only repeat its failure. The attempt counts, and the actor hears that nothing changed.
 */
function unchangedAttempt(ctx: RunContext, taskId: string, failed: GateSummary, tree: string): StepOutcome {
  const { session } = ctx;
  const { config } = session.state;
  const attempt = session.task(taskId).attempt;
  const failedAttempt = failed.attempt ?? attempt - 1;
  session.emit({ type: 'gate_skipped', taskId, attempt, tree, failedAttempt });
  const why = `${unchangedTreeWords(attempt, failedAttempt, failed.commands.find((c) => c.exitCode !== 0)?.command)}, so its failure stands`;
  session.transition(taskId, 'MECHANICAL_FAILED', why);
  if (session.task(taskId).gateFailures >= config.maxGateFixAttempts) {
    session.transition(taskId, 'EXCEEDED_LIMIT', `gate still failing after ${counted(config.maxGateFixAttempts, 'attempt')}: ${why}`);
    return STOP;
  }
  session.transition(taskId, 'RETRY_BUILD', `retrying: ${why}`);
  return { next: 'continue', feedback: { kind: 'unchanged', gate: failed } };
}

/** While a conflict is being resolved, a conflict marker left in its files fails the gate before the project's commands run. */
function markerCheck(path: string, files: string[] | undefined): GateCommandResult | undefined {
  const left = files ? leftoverConflictMarkers(path, files) : [];
  if (left.length === 0) return undefined;
  return { command: 'no conflict markers left (checked by Taskloom)', exitCode: 1, timedOut: false, durationMs: 0, output: left.join('\n') };
}

const gatePassedReason = (commands: string[]): string =>
  commands.length ? `gate passed: ${commands.join(', ')}` : 'no gate commands configured; nothing to check';

async function reviewStep(ctx: RunContext, task: PlanTask, path: string): Promise<StepOutcome> {
  const { session } = ctx;
  const { config } = session.state;
  const view = session.task(task.id);
  const review = view.reviewsDone + 1;
  const resolution = view.resolution;
  const base = resolution?.theirs ?? view.baseCommit!;
  const diff = await ctx.worktrees.diffFromBase(path, base);
  // The work is committed before it is gated, so HEAD is what the critic reads: a ledger link can show this review's diff later.
  const reviewed = await ctx.worktrees.headCommit(path);
  const resolutionReview = resolution
    ? { task, files: resolution.files, againstTheirs: diff, againstOurs: await ctx.worktrees.diffFromBase(path, resolution.ours) }
    : undefined;
  // Checked before the critic, which is told; held for a human only once the work is otherwise approved.
  const sensitive = await unreleasedSensitiveChanges(ctx, task, path, base);
  const prompt = criticPrompt(task, diff, view.lastGate, resolutionReview, sensitive);
  const ask = (text: string, resumeSessionId?: string) =>
    callAgent(ctx, {
      role: 'critic',
      taskId: task.id,
      attempt: review,
      prompt: text,
      cwd: path,
      access: 'read-only',
      outputSchema: CRITIC_VERDICT_JSON_SCHEMA,
      ...(resumeSessionId ? { resumeSessionId } : {}),
    });

  if (stoppedByBudget(ctx, task.id)) return STOP;
  let result = await ask(prompt);
  if (result.status !== 'ok') {
    if (result.status === 'agent_error' && config.allowUnverified) {
      if (sensitive.length) {
        holdSensitiveChanges(ctx, task.id, { commit: reviewed, base, files: sensitive }, describeFailure('critic', result, config.stuckThresholdSeconds));
        return STOP;
      }
      session.transition(task.id, 'CRITIC_UNAVAILABLE', describeFailure('critic', result, config.stuckThresholdSeconds));
      await queueForMerge(ctx, task.id);
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
  session.emit({ type: 'critic_verdict', taskId: task.id, review, verdict, blocking: blocking.length, base, commit: reviewed });
  if (blocking.length === 0 && sendsBackForMessages(ctx, task.id)) return { next: 'continue' };
  if (blocking.length === 0 && sensitive.length) {
    holdSensitiveChanges(ctx, task.id, { commit: reviewed, base, files: sensitive }, `critic: ${verdict.summary}`);
    return STOP;
  }
  if (blocking.length === 0) {
    const nits = verdict.findings.length ? ` (${counted(verdict.findings.length, 'non-blocking finding')})` : '';
    session.transition(task.id, 'CRITIC_GREEN', `critic: ${verdict.summary}${nits}`);
    await queueForMerge(ctx, task.id);
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
    session.transition(task.id, 'EXCEEDED_LIMIT', `critic still requires changes after ${counted(config.maxReviewCycles, 'review')}`);
    return STOP;
  }
  session.transition(task.id, 'RETRY_BUILD', `retrying with ${counted(blocking.length, 'critic finding')}`);
  return { next: 'continue', feedback: { kind: 'critic', summary: verdict.summary, findings: blocking } };
}

/** A blocking finding seen in this many reviews (the original and after two fix attempts) escalates to a human. */
const SAME_FINDING_LIMIT = 3;

/** Records the approved commit: the merge queue merges exactly that. */
export async function queueForMerge(ctx: Pick<RunContext, 'session' | 'worktrees'>, taskId: string): Promise<void> {
  const commit = await ctx.worktrees.taskTip(taskId);
  if (!commit) throw new Error(`task "${taskId}" has no branch to queue`);
  ctx.session.emit({ type: 'merge_queued', taskId, commit });
}

/** The start and the end of an answer: where an agent explains itself, and where it stopped. */
const excerpt = (text: string): string =>
  text.length > 600 ? `${text.slice(0, 300)} … ${text.slice(-300)}` : text || '(empty answer)';
