import { asksForChange, reviewAsksForChange } from '../domain/changeRequest';
import type { PullRequestReaction, PullRequestRecord } from '../domain/runState';
import type { ConversationComment, PullRequestStatus, Review, ReviewComment } from '../forge/forge';
import { isTaskloomReply } from '../loop/pullRequestPrompts';
import { counted } from '../text/counted';
import { sanitizeUntrustedText } from '../text/untrustedText';

/**
 * What people with write access asked for on a pull request, as `watch` hands it to agents: each
 * review (in any state) whose body or inline comments ask for a change (domain/changeRequest.ts),
 * and each conversation comment that does. One reaction per review or comment, oldest first, each
 * a signal reacted to once (`review:<id>`, `comment:<id>`). The status given is screened
 * (screenForgeInput): only trusted authors' words are in it.
 */

/** What a review reaction works on: the review and its inline comments that ask, or one conversation comment. */
export interface Feedback {
  review?: Review;
  /** The review's thread-starting comments that ask for a change (replies are not asked of the agent). */
  comments: ReviewComment[];
  /** The conversation comment asking for a change, when that is what the reaction answers. */
  conversation: ConversationComment[];
}

export type FeedbackStep =
  | { kind: 'human'; reason: string; next: string }
  | { kind: 'react'; signals: string[]; summary: string; feedback: Feedback };

interface Candidate {
  signal: string;
  author: string;
  at: string;
  summary: string;
  feedback: Feedback;
}

const reviewSignal = (r: Review) => `review:${r.id}`;
const commentSignal = (c: ConversationComment) => `comment:${c.id}`;
const asks = (text: string) => asksForChange(sanitizeUntrustedText(text));

/**
 * The next feedback to hand to an agent, a person to hand it to (a fix of it failed, or the
 * review rounds are used up), or undefined when nothing asked for is left. What someone wrote
 * before their own latest approval is settled by it. Pure.
 */
export function nextFeedbackStep(status: PullRequestStatus, record: PullRequestRecord, reviewFixes: number, handBack: (what: string) => string): FeedbackStep | undefined {
  const reacted = (signal: string): PullRequestReaction | undefined => record.reactions.find((r) => r.signals.includes(signal));
  const rounds = record.reactions.filter((r) => r.kind === 'review').length;
  for (const candidate of candidates(status)) {
    const reaction = reacted(candidate.signal);
    if (reaction?.status === 'failed') {
      return { kind: 'human', reason: `what ${candidate.author} asked for could not be done: ${reaction.reason ?? 'the fix failed'}`, next: handBack(`what ${candidate.author} asked for`) };
    }
    if (reaction) continue;
    if (rounds >= reviewFixes) {
      return { kind: 'human', reason: `${candidate.author} still asks for changes after ${counted(reviewFixes, 'round')} of fixes`, next: handBack(`what ${candidate.author} asked for`) };
    }
    return { kind: 'react', signals: [candidate.signal], summary: candidate.summary, feedback: candidate.feedback };
  }
  return undefined;
}

/** The feedback `signals` stand for, read again from the forge's status (for a reaction taken up after a restart). */
export function feedbackFor(status: PullRequestStatus, signals: string[]): Feedback {
  const review = status.reviews.find((r) => signals.includes(reviewSignal(r)));
  return {
    ...(review ? { review } : {}),
    comments: review ? askingComments(status, review) : [],
    conversation: status.conversation.filter((c) => signals.includes(commentSignal(c))),
  };
}

/** Every review and conversation comment that asks for a change and is not settled by its author's later approval, oldest first. */
function candidates(status: PullRequestStatus): Candidate[] {
  const approvedAt = new Map<string, string>();
  for (const r of status.reviews) {
    if (r.state === 'approved' && r.submittedAt > (approvedAt.get(r.author) ?? '')) approvedAt.set(r.author, r.submittedAt);
  }
  const settled = (author: string, at: string) => at < (approvedAt.get(author) ?? '');
  const found: Candidate[] = [];
  for (const review of status.reviews) {
    const comments = askingComments(status, review);
    if (settled(review.author, review.submittedAt) || !reviewAsksForChange(review.state, sanitizeUntrustedText(review.body), comments.length)) continue;
    const what = review.state === 'changes_requested' ? 'requested changes' : 'asked for changes in a review';
    found.push({ signal: reviewSignal(review), author: review.author, at: review.submittedAt, summary: `${review.author} ${what} (${counted(comments.length, 'comment')})`, feedback: { review, comments, conversation: [] } });
  }
  for (const comment of status.conversation) {
    if (isTaskloomReply(comment.body) || settled(comment.author, comment.createdAt) || !asks(comment.body)) continue;
    found.push({ signal: commentSignal(comment), author: comment.author, at: comment.createdAt, summary: `${comment.author} asked for a change in a comment`, feedback: { comments: [], conversation: [comment] } });
  }
  return found.sort((a, b) => a.at.localeCompare(b.at));
}

/** A review's thread-starting comments that ask for a change; every one of them for a review requesting changes. */
function askingComments(status: PullRequestStatus, review: Review): ReviewComment[] {
  const threads = status.comments.filter((c) => c.reviewId === review.id && c.inReplyTo === null);
  return review.state === 'changes_requested' ? threads : threads.filter((c) => asks(c.body));
}
