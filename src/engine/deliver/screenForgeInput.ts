import type { IgnoredInput } from '../domain/runState';
import type { ConversationComment, PullRequestStatus, Review, ReviewComment } from '../forge/forge';
import { isTaskloomReply } from '../loop/pullRequestPrompts';
import { untrustedExcerpt, visibleCharacters } from '../text/untrustedText';
import type { AuthorStanding, AuthorTrust } from './authorTrust';

/** What of a pull request's status may steer `watch`, and what it leaves alone. */
export interface ScreenedStatus {
  /** The status with only what trusted authors wrote, and a fork's failing checks without their output. */
  status: PullRequestStatus;
  /** Each input left alone, as recorded (pr_input_ignored), without the time. */
  ignored: Array<Omit<IgnoredInput, 'at'>>;
}

const EXCERPT_LIMIT = 200;

/**
 * Screens what the forge reported before `watch` decides anything from it: reviews,
 * thread-starting review comments and conversation comments by authors without write access (or
 * untrusted bots) are taken out, so they neither reach an agent nor count as anyone's latest review; the failing checks of a
 * pull request from a fork keep their name and state but lose their output and annotations, which
 * the fork's own code wrote. Replies in threads stay: they are never handed to an agent and decide
 * nothing (Taskloom finds its own replies among them by their marker).
 */
export async function screenForgeInput(status: PullRequestStatus, trust: AuthorTrust): Promise<ScreenedStatus> {
  const ignored: ScreenedStatus['ignored'] = [];
  const reviews: Review[] = [];
  for (const review of status.reviews) {
    const standing = await trust.standing({ login: review.author, association: review.association, bot: review.bot });
    if (standing.trusted) reviews.push(review);
    else ignored.push({ input: 'review', id: review.id, author: visibleCharacters(review.author), ...reasonOf(standing), state: review.state, excerpt: untrustedExcerpt(review.body, EXCERPT_LIMIT) });
  }
  const comments: ReviewComment[] = [];
  for (const comment of status.comments) {
    if (comment.inReplyTo !== null) {
      comments.push(comment);
      continue;
    }
    const standing = await trust.standing({ login: comment.author, association: comment.association, bot: comment.bot });
    if (standing.trusted) comments.push(comment);
    else ignored.push({ input: 'review_comment', id: comment.id, author: visibleCharacters(comment.author), ...reasonOf(standing), path: visibleCharacters(comment.path), excerpt: untrustedExcerpt(comment.body, EXCERPT_LIMIT) });
  }
  const conversation: ConversationComment[] = [];
  for (const comment of status.conversation) {
    // Taskloom's own replies (found by their marker) decide nothing and are never handed to an agent.
    if (isTaskloomReply(comment.body)) {
      conversation.push(comment);
      continue;
    }
    const standing = await trust.standing({ login: comment.author, association: comment.association, bot: comment.bot });
    if (standing.trusted) conversation.push(comment);
    else ignored.push({ input: 'comment', id: comment.id, author: visibleCharacters(comment.author), ...reasonOf(standing), excerpt: untrustedExcerpt(comment.body, EXCERPT_LIMIT) });
  }
  const pr = status.pullRequest;
  const checks = status.checks.map((check) => {
    if (!pr.fromFork || check.status !== 'failure') return check;
    ignored.push({ input: 'check', id: check.id, author: pr.headRepo ?? 'a deleted fork', why: 'fork_check', excerpt: untrustedExcerpt(check.name, EXCERPT_LIMIT) });
    return { ...check, output: '', annotations: [], withheld: 'fork' as const };
  });
  return { status: { ...status, reviews, comments, conversation, checks }, ignored };
}

function reasonOf(standing: Extract<AuthorStanding, { trusted: false }>): Pick<IgnoredInput, 'why' | 'association' | 'permission'> {
  return { why: standing.why, association: visibleCharacters(standing.association), ...(standing.permission ? { permission: standing.permission } : {}) };
}
