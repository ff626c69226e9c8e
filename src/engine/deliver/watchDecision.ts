import type { PullRequestReactionKind, ReviewVerdict } from '../domain/events';
import type { PullRequestRecord } from '../domain/runState';
import type { CheckResult, ConversationComment, PullRequestStatus, Review, ReviewComment } from '../forge/forge';
import { counted } from '../text/counted';
import { feedbackFor, nextFeedbackStep } from './reviewFeedback';

/** How many fixes of one kind a pull request gets before `watch` hands it to a person. */
export interface WatchLimits {
  checkFixes: number;
  reviewFixes: number;
  conflictFixes: number;
}

/** What a reaction works on, read from the forge's status by its signals. */
export interface ReactionInput {
  kind: PullRequestReactionKind;
  signals: string[];
  summary: string;
  checks: CheckResult[];
  review?: Review;
  /** The review's comments that start a thread and ask for a change (replies are not asked of the agent). */
  comments: ReviewComment[];
  /** A conversation comment asking for a change (see reviewFeedback.ts). */
  conversation?: ConversationComment[];
}

/** The pull request a stacked one is based on, as this pass saw it. */
export interface StackParent {
  number: number;
  /** null while the forge computes it. */
  mergeable: boolean | null;
}

export type WatchStep =
  | { kind: 'done'; outcome: 'merged'; reason: string }
  /** Every check passes, nothing conflicts and a latest review approves: a state the watch reports, and keeps watching. */
  | { kind: 'green'; reason: string }
  /** `next`: what the person can do, in words naming no command; `closed`: opening a new pull request is one way on. */
  | { kind: 'human'; reason: string; next: string; closed?: true }
  | { kind: 'wait'; reason: string }
  | { kind: 'react'; input: ReactionInput };

const checkSignal = (c: CheckResult) => `check:${c.id}`;
const conflictSignal = (headSha: string) => `conflict:${headSha}`;

/**
 * What `watch` does next with a pull request, given what the forge says now (screened: only what
 * people with write access wrote, see screenForgeInput) and what the run recorded. A signal (a failing check run, a review or comment asking for a change, a conflict at a head) is
 * reacted to once: a restarted `watch` reads the record and never reacts to it again. Fixes of a
 * kind count from the last time the pull request was seen recovered from it (record.rearmed). In a
 * stack, a conflict while the `parent` conflicts or is being recomputed is the parent's to fix. Pure.
 */
export function nextWatchStep(status: PullRequestStatus, record: PullRequestRecord, limits: WatchLimits, parent?: StackParent): WatchStep {
  const pr = status.pullRequest;
  if (pr.state === 'merged') return { kind: 'done', outcome: 'merged', reason: `merged into ${pr.base}` };
  if (pr.state === 'closed') {
    return { kind: 'human', reason: 'it was closed without being merged', next: 'Reopen it on the forge and watch it again, or open a new one.', closed: true };
  }
  const reacted = (signal: string) => record.reactions.find((r) => r.signals.includes(signal));
  const gaveUp = (signal: string) => {
    const reaction = reacted(signal);
    return reaction?.status === 'failed' ? reaction : undefined;
  };
  const reactions = (kind: PullRequestReactionKind) => record.reactions.filter((r) => r.kind === kind && r.id > (record.rearmed?.[kind] ?? 0)).length;
  const handBack = (what: string) => `Fix ${what} on ${pr.head} yourself and push; then watch it again (new commits are new signals).`;

  if (pr.mergeable === false && parent && parent.mergeable !== true) {
    return { kind: 'wait', reason: `its conflict comes from the pull request it is based on: waiting for #${parent.number}` };
  }
  if (pr.mergeable === false) {
    const signal = conflictSignal(pr.headSha);
    const failed = gaveUp(signal);
    if (failed) return { kind: 'human', reason: `the conflict with ${pr.base} could not be resolved: ${failed.reason ?? 'the fix failed'}`, next: handBack(`the conflict with ${pr.base}`) };
    if (!reacted(signal)) {
      if (reactions('conflict') >= limits.conflictFixes) {
        return { kind: 'human', reason: `it conflicts with ${pr.base} again after ${counted(limits.conflictFixes, 'resolution')}`, next: handBack(`the conflict with ${pr.base}`) };
      }
      return { kind: 'react', input: { kind: 'conflict', signals: [signal], summary: `conflicts with ${pr.base}`, checks: [], comments: [] } };
    }
  }

  const failing = status.checks.filter((c) => c.status === 'failure');
  const failedFix = failing.map((c) => ({ check: c, reaction: gaveUp(checkSignal(c)) })).find((f) => f.reaction);
  if (failedFix) {
    return { kind: 'human', reason: `the fix for the failing check "${failedFix.check.name}" did not pass: ${failedFix.reaction!.reason ?? 'it failed'}`, next: handBack(`"${failedFix.check.name}"`) };
  }
  const fresh = failing.filter((c) => !reacted(checkSignal(c)));
  if (fresh.length) {
    const withheld = fresh.find((c) => c.withheld === 'fork');
    if (withheld) {
      return {
        kind: 'human',
        reason: `the check "${withheld.name}" failed on a pull request from a fork (${pr.headRepo ?? 'since deleted'}); what a fork's run prints is not handed to an agent`,
        next: `${withheld.url ? `Read it at ${withheld.url}. ` : ''}${handBack(`"${withheld.name}"`)}`,
      };
    }
    const unreadable = fresh.find((c) => c.output.trim() === '' && c.annotations.length === 0);
    if (unreadable) {
      return {
        kind: 'human',
        reason: `the check "${unreadable.name}" failed without output or annotations an agent could work from`,
        next: `${unreadable.url ? `See why at ${unreadable.url}. ` : ''}${handBack(`"${unreadable.name}"`)}`,
      };
    }
    if (reactions('check') >= limits.checkFixes) {
      return { kind: 'human', reason: `checks still fail after ${counted(limits.checkFixes, 'fix', 'fixes')}: ${fresh.map((c) => c.name).join(', ')}`, next: handBack(fresh.map((c) => `"${c.name}"`).join(', ')) };
    }
    const names = fresh.map((c) => c.name).join(', ');
    return { kind: 'react', input: { kind: 'check', signals: fresh.map(checkSignal), summary: `failing check(s): ${names}`, checks: fresh, comments: [] } };
  }

  const latest = latestDecisiveReviews(status.reviews);
  const requesting = latest.filter((r) => r.state === 'changes_requested');
  const feedback = nextFeedbackStep(status, record, limits.reviewFixes, handBack);
  if (feedback?.kind === 'human') return feedback;
  if (feedback) return { kind: 'react', input: { kind: 'review', signals: feedback.signals, summary: feedback.summary, checks: [], ...feedback.feedback } };

  const pending = status.checks.filter((c) => c.status === 'pending');
  if (pending.length) return { kind: 'wait', reason: `${counted(pending.length, 'check')} running: ${pending.map((c) => c.name).join(', ')}` };
  if (pr.mergeable === false) return { kind: 'wait', reason: `the conflict fix is pushed; waiting for the forge to check mergeability` };
  if (requesting.length) return { kind: 'wait', reason: `waiting for ${requesting.map((r) => r.author).join(', ')} to review the fix` };
  const approvers = latest.filter((r) => r.state === 'approved').map((r) => r.author);
  const checks = status.checks.length ? `every check passes (${status.checks.length})` : 'there are no checks';
  if (approvers.length) return { kind: 'green', reason: `${checks} and ${approvers.join(', ')} approved` };
  return { kind: 'wait', reason: `${checks}; waiting for a review` };
}

/** Each reviewer's latest review that decides something (approve, request changes, dismissed), oldest first. */
export function latestDecisiveReviews(reviews: Review[]): Review[] {
  const latest = new Map<string, Review>();
  for (const review of [...reviews].sort((a, b) => a.submittedAt.localeCompare(b.submittedAt))) {
    if (review.state === 'approved' || review.state === 'changes_requested' || review.state === 'dismissed') latest.set(review.author, review);
  }
  return [...latest.values()].filter((r) => r.state !== 'dismissed');
}

/** The reviews in one word, as recorded and shown: anyone's latest requesting changes wins over approvals. */
export function reviewVerdict(reviews: Review[]): ReviewVerdict {
  const latest = latestDecisiveReviews(reviews);
  if (latest.some((r) => r.state === 'changes_requested')) return 'changes_requested';
  return latest.some((r) => r.state === 'approved') ? 'approved' : 'none';
}

/** The reaction `signals` stand for, read again from the forge's status (for a reaction taken up after a restart). */
export function reactionInputFor(status: PullRequestStatus, kind: PullRequestReactionKind, signals: string[], summary: string): ReactionInput {
  const checks = status.checks.filter((c) => signals.includes(checkSignal(c)));
  return { kind, signals, summary, checks, ...feedbackFor(status, signals) };
}
