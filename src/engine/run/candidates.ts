import type { RunnerResult } from '../agents/runner';
import { actorAllowedCommands } from '../domain/actorCommands';
import { candidateBudgetStop, candidateCount, type CandidateView } from '../domain/candidates';
import type { PlanTask } from '../domain/plan';
import { actorPrompt } from '../loop/prompts';
import { callAgent } from '../session/agentCall';
import { gateJudging } from '../session/baseline';
import { gateKey, servedFromCache } from '../session/gateCache';
import { runProjectGate } from '../session/projectGate';
import type { GateResult } from '../gate/runGate';
import { copyIncludedFiles } from '../workspace/worktreeInclude';
import { ZERO_USAGE } from '../domain/usage';
import type { RunContext } from '../session/runContext';
import { agentLabel, taskCommits } from '../session/taskCommits';
import { counted } from '../text/counted';
import { pickCandidate } from './candidatePick';
import { runSetupCommands } from './worktreeSetup';
import { cancel, handleAgentFailure, STOP, stoppedByBudget, type StepOutcome } from './stepOutcome';

/** Whether the task's first build runs as candidates: it has more than one, and their pick is not yet in its worktree. */
export function runsAsCandidates(ctx: RunContext, task: PlanTask): boolean {
  const view = ctx.session.task(task.id);
  return candidateCount(ctx.session.state.config, task) > 1 && !view.candidates?.settled && !view.greenCommit;
}

/**
 * A task's first build as N candidates: each in a worktree and on a branch of its own from the
 * task's start commit, built by its actor and gated, at most maxParallel at once and none once a
 * budget would be overrun. The critic picks among those that passed (candidatePick.ts); the pick's
 * work becomes the task's, and the task's loop goes on from its gate, which the candidate's result
 * serves from the cache: on to the critic's review when it passed, into the retry loop when none did.
 * Events are the truth: after a crash, candidates that finished are kept and the others start over.
 */
export async function buildCandidates(ctx: RunContext, task: PlanTask): Promise<StepOutcome> {
  const { session } = ctx;
  const count = candidateCount(session.state.config, task);
  if (!session.task(task.id).candidates?.picked) {
    const known = session.task(task.id).candidates;
    // Finished, or kept from starting by a budget: neither starts again after a resume.
    const done = new Set([...(known?.entries ?? []).filter((c) => c.passed !== undefined).map((c) => c.candidate), ...(known?.skipped ?? []).map((s) => s.candidate)]);
    const waiting = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !done.has(k));
    const stopped: RunnerResult[] = [];
    const buildNext = async (): Promise<void> => {
      for (let k = waiting.shift(); k !== undefined && stopped.length === 0 && !ctx.signal.aborted; k = waiting.shift()) {
        const stop = await buildCandidate(ctx, task, k);
        if (stop) stopped.push(stop);
      }
    };
    const atOnce = Math.max(1, Math.min(session.state.config.maxParallel, waiting.length));
    await Promise.all(Array.from({ length: atOnce }, buildNext));
    if (ctx.signal.aborted) return cancel(ctx, task.id, 'cancelled while its candidates were being built');
    if (stopped[0]) {
      handleAgentFailure(ctx, task.id, 'actor', stopped[0]);
      return STOP;
    }
    const finished = session.task(task.id).candidates?.entries.filter((c) => c.passed !== undefined) ?? [];
    if (finished.length === 0) {
      if (!stoppedByBudget(ctx, task.id)) session.transition(task.id, 'EXCEEDED_LIMIT', 'no candidate could start within the budget');
      return STOP;
    }
    if (!(await pickCandidate(ctx, task, finished))) return STOP;
  }
  if (holdsPick(ctx, task.id)) {
    const picked = session.task(task.id).candidates!.picked!;
    session.transition(task.id, 'PICK_HELD', `the ${picked.by} picked candidate ${picked.candidate}: go on with it, or choose another`);
    return STOP;
  }
  return settlePick(ctx, task);
}

/**
 * Whether the pick waits for a person first (`candidates.confirmPick`): once per task, and never a
 * person's own choice; going on (Retry, or choosing the same candidate) or choosing another settles it.
 */
function holdsPick(ctx: RunContext, taskId: string): boolean {
  const view = ctx.session.task(taskId);
  if (!ctx.session.state.config.candidates?.confirmPick || view.candidates?.picked?.by === 'person') return false;
  return !view.transitions.some((t) => t.event === 'PICK_HELD');
}

/**
 * Builds and gates candidate `k`; a call that stops the whole task (a quota, a cancel) is returned
 * for the task to handle once, and the candidate records nothing, so a resume starts it again.
 */
async function buildCandidate(ctx: RunContext, task: PlanTask, k: number): Promise<RunnerResult | undefined> {
  const { session, worktrees } = ctx;
  const { config } = session.state;
  const over = candidateBudgetStop(session.state, task.id);
  if (over) {
    session.emit({ type: 'candidate_skipped', taskId: task.id, candidate: k, reason: over });
    return undefined;
  }
  const view = session.task(task.id);
  const baseCommit = view.baseCommit!;
  const prepared = await worktrees.prepareCandidateWorktree(task.id, k, baseCommit);
  const { runner, model } = ctx.agents.forCall('actor', task.id, k);
  session.emit({ type: 'candidate_started', taskId: task.id, candidate: k, agent: runner.name, ...(model ? { model } : {}), branch: prepared.branch, path: prepared.path, baseCommit });
  const setup = await setUpCandidate(ctx, task.id, prepared.path);
  if (setup.cancelled) return { status: 'cancelled', text: '', usage: ZERO_USAGE, model: model ?? '', durationMs: 0 };
  if (!setup.passed) {
    session.emit({ type: 'candidate_finished', taskId: task.id, candidate: k, passed: false, commands: setup.commands, commit: baseCommit, filesChanged: [], failure: 'its worktree setup failed' });
    return undefined;
  }
  const result = await callAgent(ctx, {
    role: 'actor',
    taskId: task.id,
    attempt: view.attempt,
    candidate: k,
    prompt: actorPrompt(task, session.state.goal, undefined, view.humanNote),
    cwd: prepared.path,
    access: 'workspace-write',
    allowedCommands: actorAllowedCommands(config),
  });
  if (result.status === 'cancelled' || result.status === 'quota') return result;
  const message = taskCommits(session, task).attempt(view.attempt, `${agentLabel(result.agent, result.model)}, candidate ${k}`);
  const committed = await worktrees.commitAll(prepared.path, message);
  const commit = await worktrees.headCommit(prepared.path);
  const filesChanged = committed?.filesChanged ?? [];
  if (result.status !== 'ok') {
    const failure = `its actor failed (${result.status}${result.error ? `: ${result.error}` : ''})`;
    session.emit({ type: 'candidate_finished', taskId: task.id, candidate: k, passed: false, commands: [], commit, filesChanged, failure });
    return undefined;
  }
  const tree = await worktrees.headTree(prepared.path);
  const changedFrom = config.gate?.affectedOnly ? baseCommit : undefined;
  const judging = await gateJudging(ctx, changedFrom ? await worktrees.changedPaths(prepared.path, changedFrom) : undefined);
  const key = gateKey(ctx, tree, { kind: 'gate', ...(changedFrom ? { changedFrom } : {}) });
  const gate = servedFromCache(ctx, key)?.gate ?? (await runProjectGate(ctx, prepared.path, { taskId: task.id, judging }));
  if (gate.cancelled) return { ...result, status: 'cancelled' };
  const settled = !gate.stuck && !gate.sandboxFailure;
  session.emit({ type: 'candidate_finished', taskId: task.id, candidate: k, passed: gate.passed, commands: gate.commands, commit, filesChanged, ...(settled ? { tree, key } : {}) });
  return undefined;
}

/**
 * Makes a candidate's worktree ready as a task's (worktreeSetup.ts): the untracked files the
 * project names are copied in and its setup commands run, so its actor and gate find what they need.
 */
async function setUpCandidate(ctx: RunContext, taskId: string, path: string): Promise<GateResult> {
  const { config, repoRoot } = ctx.session.state;
  await copyIncludedFiles(repoRoot, path, config.worktree?.copy ?? []);
  return runSetupCommands(ctx, taskId, path, config.worktree?.setup ?? []);
}

/**
 * Puts the pick's work on the task's branch and in its worktree, and lets the others' worktrees go
 * (their branches stay, for a person to look at or choose, until the run is discarded).
 */
async function settlePick(ctx: RunContext, task: PlanTask): Promise<StepOutcome> {
  const { session, worktrees } = ctx;
  const view = session.task(task.id);
  const candidates = view.candidates!;
  const pick = candidates.entries.find((c) => c.candidate === candidates.picked!.candidate)!;
  await adoptCandidate(ctx, task.id, pick);
  for (const entry of candidates.entries) await worktrees.removeCandidateWorktree(task.id, entry.candidate);
  const of = counted(candidates.entries.length, 'candidate');
  session.transition(task.id, 'BUILD_FINISHED', `candidate ${pick.candidate} of ${of} goes on (${pick.agent}, ${counted(pick.filesChanged.length, 'file')} changed)`);
  return { next: 'continue' };
}

/** The task's branch and worktree take the candidate's commit; the task's changed files become its. */
export async function adoptCandidate(ctx: Pick<RunContext, 'session' | 'worktrees'>, taskId: string, pick: CandidateView): Promise<void> {
  const commit = pick.commit ?? pick.baseCommit;
  await ctx.worktrees.restoreTaskBranch(taskId, commit);
  ctx.session.emit({ type: 'work_committed', taskId, attempt: ctx.session.task(taskId).attempt, commit, filesChanged: pick.filesChanged });
}
