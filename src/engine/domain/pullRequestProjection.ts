import { decide, failedCommandOf } from './decisionLedger';
import type { EventOf, PullRequestReactionKind } from './events';
import type { ProjectionHandlers } from './projectionHandlers';
import type { PullRequestReaction, PullRequestRecord, RunState } from './runState';

/** The projection of a run's pull requests and of what `watch` saw and did on them. */
export const PULL_REQUEST_HANDLERS = {
  pull_request(state, e) {
    const key = e.taskId ?? '';
    const before = state.pullRequests[key];
    const same = before?.number === e.number;
    state.pullRequests[key] = {
      number: e.number,
      url: e.url,
      head: e.head,
      base: e.base,
      repo: e.repo,
      remote: e.remote,
      reactions: same ? before.reactions : [],
      ...(same && before.observed ? { observed: before.observed } : {}),
      ...(same && before.ignored ? { ignored: before.ignored } : {}),
      ...(e.action === 'adopted' || (same && before.adopted) ? { adopted: true as const } : {}),
    };
    decide(state, e, 'pull_request', { type: 'pull_request', number: e.number, action: e.action, url: e.url, head: e.head, base: e.base }, e.taskId ?? undefined);
  },
  pr_observed(state, e) {
    const pr = pullRequestOf(state, e.number);
    const { type: _type, seq: _seq, runId: _runId, v: _v, ...observed } = e;
    foldWatchedAgain(pr, e);
    foldRearmed(pr, e);
    foldRed(pr, e);
    pr.observed = observed;
    decide(state, e, 'pull_request', { type: 'pr_observed', number: e.number, state: e.state, headSha: e.headSha, checks: e.checks, review: e.review, mergeable: e.mergeable });
  },
  pr_reaction_started(state, e) {
    const pr = pullRequestOf(state, e.number);
    pr.reactions.push({ id: e.reaction, kind: e.kind, signals: e.signals, headSha: e.headSha, taskIds: e.taskIds, summary: e.summary, status: 'running', replied: [] });
    decide(state, e, 'pull_request', { type: 'pr_reaction_started', number: e.number, reaction: e.reaction, summary: e.summary, taskIds: e.taskIds });
  },
  pr_reaction_resumed(state, e) {
    decide(state, e, 'pull_request', { type: 'pr_reaction_resumed', number: e.number, reaction: e.reaction, reason: e.reason });
  },
  pr_fix_gated(state, e) {
    reactionOf(state, e.number, e.reaction).gate = { passed: e.passed, commands: e.commands };
    const failed = failedCommandOf(e.commands);
    decide(state, e, 'gate', { type: 'pr_fix_gated', number: e.number, reaction: e.reaction, attempt: e.attempt, passed: e.passed, ...(failed ? { failed } : {}) });
  },
  pr_fix_reviewed(state, e) {
    reactionOf(state, e.number, e.reaction);
    const verdict = { decision: e.verdict.decision, summary: e.verdict.summary };
    decide(state, e, 'critic', { type: 'pr_fix_reviewed', number: e.number, reaction: e.reaction, verdict });
  },
  pr_fix_pushed(state, e) {
    const reaction = reactionOf(state, e.number, e.reaction);
    reaction.pushed = { commit: e.commit, commits: e.commits };
    decide(state, e, 'pull_request', { type: 'pr_fix_pushed', number: e.number, reaction: e.reaction, commit: e.commit, commits: e.commits });
  },
  pr_replied(state, e) {
    reactionOf(state, e.number, e.reaction).replied.push(e.commentId);
  },
  pr_reaction_finished(state, e) {
    const reaction = reactionOf(state, e.number, e.reaction);
    reaction.status = e.outcome;
    reaction.reason = e.reason;
    decide(state, e, 'pull_request', { type: 'pr_reaction_finished', number: e.number, reaction: e.reaction, outcome: e.outcome, reason: e.reason });
  },
  pr_watch_ended(state, e) {
    const pr = pullRequestOf(state, e.number);
    pr.watch = { outcome: e.outcome, reason: e.reason, at: e.at, ...(pr.observed ? { headSha: pr.observed.headSha } : {}) };
    decide(state, e, 'pull_request', { type: 'pr_watch_ended', number: e.number, outcome: e.outcome, reason: e.reason });
  },
  pull_request_escalated(state, e) {
    const pr = pullRequestOf(state, e.number);
    if (pr.red?.headSha === e.headSha) pr.red.escalated = true;
    decide(state, e, 'pull_request', { type: 'pull_request_escalated', number: e.number, red: e.red, failing: e.failing, since: e.since, afterMinutes: e.afterMinutes });
  },
  pull_request_merged_by_taskloom(state, e) {
    pullRequestOf(state, e.number).mergedByTaskloom = { method: e.method, commit: e.commit, approvedBy: e.approvedBy, at: e.at };
    decide(state, e, 'pull_request', { type: 'pull_request_merged_by_taskloom', number: e.number, method: e.method, commit: e.commit, approvedBy: e.approvedBy });
  },
  pr_input_ignored(state, e) {
    const pr = pullRequestOf(state, e.number);
    const { type: _type, seq: _seq, runId: _runId, v: _v, number, ...ignored } = e;
    pr.ignored = [...(pr.ignored ?? []), ignored];
    const { at: _at, ...fact } = ignored;
    decide(state, e, 'pull_request', { type: 'pr_input_ignored', number, ...fact });
  },
} satisfies Partial<ProjectionHandlers>;

type Observed = EventOf<'pr_observed'>;

const lastReaction = (pr: PullRequestRecord): number => Math.max(0, ...pr.reactions.map((r) => r.id));

/** A head that moved since a watch ended on it (a person pushed, or a fix landed) brings new signals: it is watched again, with whole budgets when it had been handed to a person. */
function foldWatchedAgain(pr: PullRequestRecord, e: Observed): void {
  if (!pr.watch || pr.watch.outcome === 'merged' || pr.watch.headSha === undefined || pr.watch.headSha === e.headSha) return;
  if (pr.watch.outcome === 'needs_human') pr.rearmed = { check: lastReaction(pr), review: lastReaction(pr), conflict: lastReaction(pr) };
  delete pr.watch;
}

/** Each kind's budget counts again from here once the pull request is seen recovered from it: checks all pass, approved, mergeable. */
function foldRearmed(pr: PullRequestRecord, e: Observed): void {
  const recovered: Record<PullRequestReactionKind, boolean> = {
    check: e.checks.length > 0 && e.checks.every((c) => c.status === 'success'),
    review: e.review === 'approved',
    conflict: e.mergeable === true,
  };
  const last = lastReaction(pr);
  if (last === 0) return;
  for (const kind of ['check', 'review', 'conflict'] as const) if (recovered[kind]) pr.rearmed = { ...pr.rearmed, [kind]: last };
}

/** A red stretch starts when the pull request is first seen red at a head, and ends when it is seen not red or at another head. */
function foldRed(pr: PullRequestRecord, e: Observed): void {
  const failing = e.checks.filter((c) => c.status === 'failure').map((c) => c.name);
  const red = e.state !== 'open' ? undefined : e.mergeable === false ? 'conflict' : failing.length ? 'checks' : undefined;
  if (!red) delete pr.red;
  else if (pr.red?.headSha !== e.headSha || pr.red.red !== red) pr.red = { headSha: e.headSha, since: e.at, red, failing };
  else pr.red.failing = failing;
}

function pullRequestOf(state: RunState, number: number): PullRequestRecord {
  const pr = Object.values(state.pullRequests).find((p) => p.number === number);
  if (!pr) throw new Error(`event about pull request #${number}, which the run never opened`);
  return pr;
}

function reactionOf(state: RunState, number: number, id: number): PullRequestReaction {
  const reaction = pullRequestOf(state, number).reactions.find((r) => r.id === id);
  if (!reaction) throw new Error(`event about reaction ${id} of pull request #${number}, which never started`);
  return reaction;
}
