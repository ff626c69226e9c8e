import { readTextOrReason } from '../workspace/readTextOrReason';
import type { SandboxContext } from '../sandbox/taskLauncher';
import { join } from 'node:path';
import { actorAllowedCommands } from '../domain/actorCommands';
import { budgetStop } from '../domain/budget';
import type { PlanTask } from '../domain/plan';
import { errorText } from '../domain/taskloomError';
import type { GateCommandResult } from '../domain/events';
import type { GateSummary, PullRequestReaction, PullRequestRecord } from '../domain/runState';
import { blockingFindings } from '../domain/verdict';
import type { Forge, PullRequestStatus } from '../forge/forge';
import { CRITIC_VERDICT_JSON_SCHEMA, parseCriticVerdict } from '../loop/criticRubric';
import { actorPrompt, criticPrompt, type ActorFeedback } from '../loop/prompts';
import { checkFixTask, conflictTask, replyMarker, replyText, reviewFixTask } from '../loop/pullRequestPrompts';
import { resolvePrompt } from '../loop/resolutionPrompts';
import type { RoleRunners } from '../session/agentFactory';
import { callAgent, describeFailure } from '../session/agentCall';
import { runProjectGate } from '../session/projectGate';
import type { RunSession } from '../session/runSession';
import { agentLabel } from '../session/taskCommits';
import { clipMiddle } from '../text/clip';
import { commitMessage } from '../workspace/commitMessage';
import { leftoverConflictMarkers } from '../workspace/conflictMarkers';
import { WorkspaceError } from '../workspace/errors';
import { PullRequestWorktree } from '../workspace/pullRequestWorktree';
import { resolveCommit } from '../workspace/gitQueries';
import { pushBranch } from '../workspace/pushBranch';
import { repoGit, type RepoLocation, type WorktreeManager } from '../workspace/worktreeManager';
import type { AuthorTrust } from './authorTrust';
import type { ReactionInput } from './watchDecision';
import { counted } from '../text/counted';
import { unreleasedChanges, type SensitiveChange } from '../domain/sensitivePaths';
import { releasedFor, sensitivePatterns, sensitiveReason } from '../session/sensitiveHold';

/** What a reaction needs: the run, its agent, the forge, and the repository it pushes from. */
export interface WatchContext {
  session: RunSession;
  sandbox: SandboxContext;
  agents: RoleRunners;
  signal: AbortSignal;
  forge: Forge;
  /** Whose reviews and comments may steer an agent, remembered for the watch session. */
  trust: AuthorTrust;
  repo: RepoLocation;
  worktrees: WorktreeManager;
}

const FILE_LIMIT = 20_000;
const DIFF_LIMIT = 40_000;

/** Who fixes what: one actor per task whose files the reviewer commented on (null: the integration's). */
interface FixGroup {
  taskId: string | null;
  task: PlanTask;
  /** The title of the fix's commits. */
  subject: string;
}

type Fixed = { ok: true; summary: string; gate?: GateCommandResult[] } | { ok: false; reason: string };

/**
 * Reacts to a signal on a pull request: an agent fixes it in a worktree of the pull request's
 * branch (a failing check by the integration's actor, a review's comments by the actor of the task
 * that changed each file, a conflict with the base by merging it and resolving); each fix passes the
 * gate and the critic, then is pushed, and the review comments it answers get a reply. Every step
 * is an event, so a restarted `watch` finishes the reaction instead of starting another.
 */
export async function startReaction(ctx: WatchContext, pr: PullRequestRecord, status: PullRequestStatus, input: ReactionInput): Promise<void> {
  const id = Math.max(0, ...pr.reactions.map((r) => r.id)) + 1;
  const groups = fixGroups(ctx.session, pr, input);
  ctx.session.emit({
    type: 'pr_reaction_started',
    number: pr.number,
    reaction: id,
    kind: input.kind,
    signals: input.signals,
    headSha: status.pullRequest.headSha,
    taskIds: groups.map((g) => g.taskId),
    summary: input.summary,
  });
  await carryOut(ctx, pr, reactionOf(ctx, pr, id), status, input);
}

/**
 * Finishes a reaction a stopped `watch` left running: the fix already pushed (recorded, or found on
 * the remote) only still needs its replies; one that pushed nothing is taken up again from the head
 * it started on; one whose branch someone else moved meanwhile is given up, since the new head
 * brings its own signals.
 */
export async function finishInterruptedReaction(ctx: WatchContext, pr: PullRequestRecord, reaction: PullRequestReaction, status: PullRequestStatus, input: ReactionInput): Promise<void> {
  const pushedBefore = 'the fix was pushed before watch stopped';
  if (reaction.pushed) {
    await advanceIntegration(ctx, pr, reaction.headSha, reaction.pushed.commit, reaction.gate?.commands ?? []);
    return replyAndFinish(ctx, pr, reaction, status, input, pushedBefore);
  }
  const remoteHead = status.pullRequest.headSha;
  if (remoteHead !== reaction.headSha) {
    const worktree = new PullRequestWorktree(ctx.repo, ctx.session.runId, pr.number, pr.remote, ctx.session.state.config.worktree?.root);
    if ((await worktree.head()) === remoteHead) {
      ctx.session.emit({ type: 'pr_fix_pushed', number: pr.number, reaction: reaction.id, commit: remoteHead, commits: await worktree.commitsSince(reaction.headSha) });
      await advanceIntegration(ctx, pr, reaction.headSha, remoteHead, reaction.gate?.commands ?? []);
      return replyAndFinish(ctx, pr, reactionOf(ctx, pr, reaction.id), status, input, pushedBefore);
    }
    return finish(ctx, pr, reaction, 'failed', `${pr.head} moved to ${remoteHead.slice(0, 10)} (not Taskloom's push) while the fix was under way; the fix was not pushed`);
  }
  ctx.session.emit({ type: 'pr_reaction_resumed', number: pr.number, reaction: reaction.id, reason: 'watch stopped before the fix was pushed; fixing again from the same head' });
  await carryOut(ctx, pr, reaction, status, input);
}

async function carryOut(ctx: WatchContext, pr: PullRequestRecord, reaction: PullRequestReaction, status: PullRequestStatus, input: ReactionInput): Promise<void> {
  const worktree = new PullRequestWorktree(ctx.repo, ctx.session.runId, pr.number, pr.remote, ctx.session.state.config.worktree?.root);
  try {
    const path = await worktree.checkout(pr.head, reaction.headSha);
    // The critic reviews what the fix changes; after merging the base, what the branch changes on top of it.
    let reviewFrom = reaction.headSha;
    const summaries: string[] = [];
    let gate: GateCommandResult[] = [];
    const groups = fixGroups(ctx.session, pr, input);
    if (input.kind === 'conflict') {
      const merged = await mergeBase(ctx, pr, reaction, worktree, path);
      if (!merged.ok) return finish(ctx, pr, reaction, 'failed', merged.reason);
      reviewFrom = await worktree.baseCommit();
      summaries.push(merged.summary);
    }
    for (const group of groups) {
      // After a base merge the actor only has work when the gate fails on the result.
      const fixed = await fixLoop(ctx, pr, reaction, group, path, { actorFirst: input.kind !== 'conflict', reviewFrom });
      if (!fixed.ok) return finish(ctx, pr, reaction, 'failed', fixed.reason);
      if (fixed.summary) summaries.push(fixed.summary);
      gate = fixed.gate ?? gate;
    }
    const commits = await worktree.commitsSince(reaction.headSha);
    if (commits === 0) return finish(ctx, pr, reaction, 'failed', 'the agent changed nothing');
    const commit = (await worktree.head())!;
    const held = await sensitiveFixChanges(ctx, path, reaction.headSha, reviewFrom, groups);
    if (held.length) return finish(ctx, pr, reaction, 'failed', `the fix ${sensitiveReason(held)}; it was not pushed, a person decides on such changes`);
    await pushBranch(ctx.repo.root, pr.remote, commit, pr.head);
    ctx.session.emit({ type: 'pr_fix_pushed', number: pr.number, reaction: reaction.id, commit, commits });
    await advanceIntegration(ctx, pr, reaction.headSha, commit, gate);
    await replyAndFinish(ctx, pr, reactionOf(ctx, pr, reaction.id), status, input, summaries.join('; '));
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    finish(ctx, pr, reaction, 'failed', errorText(error));
  }
}

/**
 * The sensitive changes the fix makes (domain/sensitivePaths.ts) that the plan entries of the tasks
 * it fixes do not release. After a base merge only what differs from both the pull request's head
 * and the base counts: a file taken from either side as it is was not written by the fix.
 */
async function sensitiveFixChanges(ctx: WatchContext, path: string, headSha: string, reviewFrom: string, groups: FixGroup[]): Promise<SensitiveChange[]> {
  const { state } = ctx.session;
  const patterns = sensitivePatterns(state.config);
  const fromHead = await ctx.worktrees.sensitiveChanges(path, headSha, patterns);
  const fromBase = reviewFrom === headSha ? fromHead : await ctx.worktrees.sensitiveChanges(path, reviewFrom, patterns);
  const written = fromHead.filter((c) => fromBase.some((b) => b.path === c.path));
  return unreleasedChanges(written, groups.flatMap((g) => (g.taskId ? releasedFor(state, g.task) : [])));
}

/** Merges the base branch in; a conflict goes to the resolver, whose result must leave no markers. */
async function mergeBase(ctx: WatchContext, pr: PullRequestRecord, reaction: PullRequestReaction, worktree: PullRequestWorktree, path: string): Promise<Fixed> {
  const { session } = ctx;
  const files = await worktree.mergeBase(pr.base);
  let agent = 'git';
  if (files.length) {
    const stop = budgetStop(session.state, null);
    if (stop) return { ok: false, reason: `${stop}; no further agent call was made` };
    const sides = await ctx.worktrees.conflictSides(path, reaction.headSha, 'MERGE_HEAD', files);
    const result = await callAgent(ctx, {
      role: 'actor',
      purpose: 'resolve',
      taskId: null,
      attempt: 1,
      prompt: resolvePrompt({
        goal: session.state.goal,
        task: conflictTask(pr.number, pr.head, pr.base, session.state.goal),
        files: files.map((file) => ({ path: file, text: clipMiddle(readTextOrReason(join(path, file)), FILE_LIMIT) })),
        ours: clipMiddle(sides.ours, DIFF_LIMIT),
        theirs: [],
        theirsDiff: clipMiddle(sides.theirs, DIFF_LIMIT),
      }),
      cwd: path,
      access: 'workspace-write',
      allowedCommands: [],
    });
    if (result.status !== 'ok') return { ok: false, reason: describeFailure('resolver', result, session.state.config.stuckThresholdSeconds) };
    const left = leftoverConflictMarkers(path, files);
    if (left.length) return { ok: false, reason: `conflict markers are left in ${left.join(', ')}` };
    agent = agentLabel(result.agent, result.model);
  }
  const message = commitMessage(`Merge ${pr.base} into ${pr.head}`, { run: session.runId, agent }, files.length ? `Resolves the conflict in ${files.join(', ')}.` : undefined);
  await ctx.worktrees.commitAll(path, message);
  return { ok: true, summary: files.length ? `merged ${pr.base}, resolving ${files.join(', ')}` : `merged ${pr.base}` };
}

/**
 * Actor → gate → critic on the worktree until the critic approves, within the run's limits (gate
 * fixes, review cycles) and budgets. Each actor answer is committed, titled by what it fixes.
 */
async function fixLoop(
  ctx: WatchContext,
  pr: PullRequestRecord,
  reaction: PullRequestReaction,
  group: FixGroup,
  path: string,
  { actorFirst, reviewFrom }: { actorFirst: boolean; reviewFrom: string },
): Promise<Fixed> {
  const { session } = ctx;
  const { config } = session.state;
  let feedback: ActorFeedback | undefined;
  let gateFailures = 0;
  let reviews = 0;
  let summary = '';
  let actorTurn = actorFirst;
  for (let attempt = 1; ; attempt++) {
    if (actorTurn) {
      const stop = budgetStop(session.state, group.taskId);
      if (stop) return { ok: false, reason: `${stop}; no further agent call was made` };
      const result = await callAgent(ctx, {
        role: 'actor',
        purpose: 'fix',
        taskId: group.taskId,
        attempt,
        prompt: actorPrompt(group.task, session.state.goal, feedback),
        cwd: path,
        access: 'workspace-write',
        allowedCommands: actorAllowedCommands(config),
      });
      if (result.status !== 'ok') return { ok: false, reason: describeFailure('actor', result, config.stuckThresholdSeconds) };
      summary = result.text;
      await ctx.worktrees.commitAll(path, commitMessage(group.subject, { ...(group.taskId ? { task: group.taskId } : {}), run: session.runId, agent: agentLabel(result.agent, result.model), attempt }));
    }
    actorTurn = true;
    const gate = await runProjectGate(ctx, path, { setUp: true });
    session.emit({ type: 'pr_fix_gated', number: pr.number, reaction: reaction.id, attempt, passed: gate.passed, commands: gate.commands });
    if (gate.cancelled) return { ok: false, reason: 'cancelled while the gate ran' };
    if (gate.sandboxFailure) return { ok: false, reason: `the gate did not run: ${gate.sandboxFailure}` };
    const lastGate: GateSummary = { passed: gate.passed, at: new Date().toISOString(), commands: gate.commands };
    if (!gate.passed) {
      gateFailures += 1;
      const failed = gate.commands.find((c) => c.exitCode !== 0);
      const why = failed ? `\`${failed.command}\` ${failed.timedOut ? 'timed out' : `exited ${failed.exitCode}`}` : 'the gate failed';
      if (gate.stuck || gateFailures >= config.maxGateFixAttempts) return { ok: false, reason: `the gate still fails on the fix after ${counted(gateFailures, 'attempt')}: ${why}` };
      feedback = { kind: 'gate', gate: lastGate };
      continue;
    }
    const stop = budgetStop(session.state, group.taskId);
    if (stop) return { ok: false, reason: `${stop}; no further agent call was made` };
    reviews += 1;
    const diff = await ctx.worktrees.diffFromBase(path, reviewFrom);
    const review = await callAgent(ctx, {
      role: 'critic',
      purpose: 'fix',
      taskId: group.taskId,
      attempt: reviews,
      prompt: criticPrompt(group.task, clipMiddle(diff, DIFF_LIMIT), lastGate),
      cwd: path,
      access: 'read-only',
      outputSchema: CRITIC_VERDICT_JSON_SCHEMA,
    });
    if (review.status !== 'ok') return { ok: false, reason: describeFailure('critic', review, config.stuckThresholdSeconds) };
    const verdict = parseCriticVerdict(review.structured, review.text);
    if (!verdict) return { ok: false, reason: 'the critic gave no valid verdict on the fix' };
    const blocking = blockingFindings(verdict);
    session.emit({ type: 'pr_fix_reviewed', number: pr.number, reaction: reaction.id, attempt: reviews, verdict, blocking: blocking.length });
    if (blocking.length === 0) return { ok: true, summary: firstLine(summary), gate: gate.commands };
    if (reviews >= config.maxReviewCycles) return { ok: false, reason: `the critic still requires changes to the fix after ${counted(reviews, 'review')}: ${verdict.summary}` };
    feedback = { kind: 'critic', summary: verdict.summary, findings: blocking };
  }
}

/**
 * The run's own integration branch follows its pull request: a fix passed the gate and the critic,
 * so the branch moves to it (only from the commit the fix started on), and the gate's pass on it is
 * recorded as the integration gate's, so `apply` and a second `pr` take the fixed work.
 */
async function advanceIntegration(ctx: WatchContext, pr: PullRequestRecord, from: string, commit: string, gate: GateCommandResult[]): Promise<void> {
  const { state } = ctx.session;
  if (pr.head !== state.integration.branch) return;
  const git = repoGit(ctx.repo, ctx.repo.root);
  if ((await resolveCommit(git, `refs/heads/${pr.head}`)) === commit) return;
  const moved = await git.run(['update-ref', `refs/heads/${pr.head}`, commit, from]).then(
    () => true,
    () => false,
  );
  if (!moved) {
    ctx.session.emit({ type: 'warning', message: `${pr.head} moved here since the pull request's head ${from.slice(0, 10)}; it was left as it is, the fix is on the remote only` });
    return;
  }
  ctx.session.emit({ type: 'gate_result', taskId: null, attempt: state.integration.batches, passed: true, commands: gate, commit, taskIds: [] });
}

async function replyAndFinish(ctx: WatchContext, pr: PullRequestRecord, reaction: PullRequestReaction, status: PullRequestStatus, input: ReactionInput, summary: string): Promise<void> {
  const commit = reaction.pushed!.commit;
  const marker = replyMarker(ctx.session.runId, reaction.id);
  const text = `${replyText(commit, summary)}\n\n${marker}`;
  // Replies already on the forge (posted just before a crash) count: the marker names the reaction.
  const answered = new Set([...reaction.replied, ...status.comments.filter((c) => c.inReplyTo !== null && c.body.includes(marker)).map((c) => c.inReplyTo!)]);
  for (const comment of input.comments) {
    if (!answered.has(comment.id)) await ctx.forge.replyToComment(pr.number, comment.id, text);
    if (!reaction.replied.includes(comment.id)) ctx.session.emit({ type: 'pr_replied', number: pr.number, reaction: reaction.id, commentId: comment.id });
  }
  // What has no thread of its own (a review without inline comments, a conversation comment) is answered in the conversation, naming its author.
  const inConversation = [
    ...(input.review && input.comments.length === 0 ? [{ id: `review:${input.review.id}`, author: input.review.author }] : []),
    ...(input.conversation ?? []).map((c) => ({ id: `comment:${c.id}`, author: c.author })),
  ];
  const postedBefore = status.conversation.some((c) => c.body.includes(marker));
  for (const { id, author } of inConversation) {
    if (reaction.replied.includes(id)) continue;
    if (!postedBefore) await ctx.forge.comment(pr.number, `@${author} ${text}`);
    ctx.session.emit({ type: 'pr_replied', number: pr.number, reaction: reaction.id, commentId: id });
  }
  finish(ctx, pr, reaction, 'pushed', `pushed ${commit.slice(0, 10)}: ${firstLine(summary) || input.summary}`);
}

function finish(ctx: WatchContext, pr: PullRequestRecord, reaction: PullRequestReaction, outcome: 'pushed' | 'failed', reason: string): void {
  // A watch stopped mid-fix (Ctrl-C, the window closing) cancelled its agent or gate: that is no
  // verdict on the fix. The reaction stays open, and the next watch takes it up.
  if (outcome === 'failed' && ctx.signal.aborted) return;
  ctx.session.emit({ type: 'pr_reaction_finished', number: pr.number, reaction: reaction.id, outcome, reason });
}

/** A review's comments go to the task that changed the file last in merge order; anything else to the integration's actor. */
function fixGroups(session: RunSession, pr: PullRequestRecord, input: ReactionInput): FixGroup[] {
  const branch = pr.head;
  if (input.kind === 'check') {
    const names = input.checks.map((c) => `"${c.name}"`).join(', ');
    return [{ taskId: null, task: checkFixTask(pr.number, branch, input.checks), subject: `Fix the failing check ${names}` }];
  }
  const conversation = input.conversation ?? [];
  if (input.kind === 'conflict' || (!input.review && conversation.length === 0)) {
    return [{ taskId: null, task: conflictTask(pr.number, branch, pr.base, session.state.goal), subject: `Make ${branch} pass after merging ${pr.base}` }];
  }
  const { state } = session;
  const owner = (path: string): string | null => [...state.integration.merged].reverse().find((id) => state.tasks[id]!.changedFiles.includes(path)) ?? null;
  const byOwner = new Map<string | null, typeof input.comments>();
  for (const comment of input.comments) byOwner.set(owner(comment.path), [...(byOwner.get(owner(comment.path)) ?? []), comment]);
  // A review with no inline comment, or a conversation comment, speaks of no file: the integration's actor takes it.
  if (byOwner.size === 0) byOwner.set(null, []);
  const what = input.review ? `${input.review.author}'s review` : `${conversation[0]!.author}'s comment`;
  return [...byOwner].map(([taskId, comments]) => {
    const planTask = taskId ? state.plan.tasks.find((t) => t.id === taskId) : undefined;
    return {
      taskId,
      task: reviewFixTask(pr.number, branch, { ...(input.review ? { review: input.review } : {}), conversation }, comments, planTask),
      subject: planTask ? `${planTask.title}: address ${what}` : `Address ${what}`,
    };
  });
}

function reactionOf(ctx: WatchContext, pr: PullRequestRecord, id: number): PullRequestReaction {
  const record = Object.values(ctx.session.state.pullRequests).find((p) => p.number === pr.number)!;
  return record.reactions.find((r) => r.id === id)!;
}

const firstLine = (text: string): string => text.trim().split('\n')[0]!.slice(0, 200);
