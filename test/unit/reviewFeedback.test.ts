import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { feedbackFor, nextFeedbackStep } from '../../src/engine/deliver/reviewFeedback';
import type { PullRequestReaction, PullRequestRecord } from '../../src/engine/domain/runState';
import type { ConversationComment, PullRequestStatus, Review, ReviewComment } from '../../src/engine/forge/forge';

const record = (reactions: Partial<PullRequestReaction>[] = []): PullRequestRecord => ({
  number: 7,
  url: '',
  head: 'feature',
  base: 'main',
  repo: 'o/r',
  remote: 'origin',
  reactions: reactions.map((r, i) => ({ id: i + 1, kind: 'review', signals: [], headSha: 'a', taskIds: [null], summary: '', status: 'pushed', replied: [], ...r })),
});
const review = (id: string, author: string, state: Review['state'], body: string, day: number): Review => ({ id, author, association: 'MEMBER', bot: false, state, body, submittedAt: `2026-01-0${day}T00:00:00Z` });
const inline = (id: string, reviewId: string, body: string): ReviewComment => ({ id, reviewId, author: 'alice', association: 'MEMBER', bot: false, path: 'a.js', line: 1, body, inReplyTo: null });
const remark = (id: string, author: string, body: string, day: number): ConversationComment => ({ id, author, association: 'MEMBER', bot: false, body, createdAt: `2026-01-0${day}T00:00:00Z` });
const status = (reviews: Review[], comments: ReviewComment[], conversation: ConversationComment[]): PullRequestStatus => ({
  pullRequest: { number: 7, url: '', head: 'feature', base: 'main', headSha: 'h1', state: 'open', draft: false, mergeable: true, headRepo: 'o/r', fromFork: false },
  checks: [],
  reviews,
  comments,
  conversation,
});
const handBack = (what: string) => `fix ${what} yourself`;
const next = (s: PullRequestStatus, r = record(), rounds = 3) => nextFeedbackStep(s, r, rounds, handBack);

describe('review feedback watch hands to an agent', () => {
  it('a comment review asking by its body or an inline comment, and a conversation comment, oldest first', () => {
    const s = status([review('r1', 'alice', 'commented', '', 2)], [inline('c1', 'r1', 'Please rename x.'), inline('c2', 'r1', 'nice')], [remark('m1', 'bob', 'Please add a test.', 1)]);
    const first = next(s);
    assert.equal(first?.kind === 'react' && first.summary, 'bob asked for a change in a comment');
    assert.deepEqual(first?.kind === 'react' && first.feedback.conversation.map((c) => c.id), ['m1']);
    const second = next(s, record([{ signals: ['comment:m1'] }]));
    assert.equal(second?.kind === 'react' && second.summary, 'alice asked for changes in a review (1 comment)');
    assert.deepEqual(second?.kind === 'react' && second.feedback.comments.map((c) => c.id), ['c1'], 'the "nice" comment is not asked of the agent');
    assert.equal(next(s, record([{ signals: ['comment:m1'] }, { signals: ['review:r1'] }])), undefined, 'each reacted to once');
  });

  it('approvals, thanks, emoji and Taskloom’s own replies start nothing', () => {
    const s = status(
      [review('r1', 'bob', 'approved', 'Approved, but please rename x', 1), review('r2', 'carol', 'commented', 'LGTM 👍', 1)],
      [],
      [remark('m1', 'bob', 'thanks!', 2), remark('m2', 'dave', '🎉', 2), remark('m3', 'me', '@alice Addressed in abc: done\n\n<!-- taskloom run 20260101-000000-abcd reaction 1 -->', 2)],
    );
    assert.equal(next(s), undefined);
  });

  it('what a person wrote before their own later approval is settled by it', () => {
    const s = status([review('r1', 'alice', 'changes_requested', 'Rename x.', 1), review('r2', 'alice', 'approved', '', 3)], [], [remark('m1', 'alice', 'Also add a test.', 2), remark('m2', 'bob', 'Add docs.', 2)]);
    const step = next(s);
    assert.deepEqual(step?.kind === 'react' && step.signals, ['comment:m2']);
  });

  it('a failed fix, or the review rounds used up, hands it to a person', () => {
    const s = status([], [], [remark('m1', 'bob', 'Please add a test.', 1), remark('m2', 'bob', 'And docs.', 2)]);
    const failed = next(s, record([{ signals: ['comment:m1'], status: 'failed', reason: 'the gate still fails' }]));
    assert.deepEqual(failed, { kind: 'human', reason: 'what bob asked for could not be done: the gate still fails', next: 'fix what bob asked for yourself' });
    const spent = next(s, record([{ signals: ['comment:m1'] }]), 1);
    assert.equal(spent?.kind, 'human');
  });

  it('reads a reaction’s feedback again by its signals after a restart', () => {
    const s = status([review('r1', 'alice', 'commented', '', 1)], [inline('c1', 'r1', 'Please rename x.')], [remark('m1', 'bob', 'Please add a test.', 1)]);
    assert.deepEqual(feedbackFor(s, ['comment:m1']).conversation.map((c) => c.id), ['m1']);
    const fromReview = feedbackFor(s, ['review:r1']);
    assert.equal(fromReview.review?.id, 'r1');
    assert.deepEqual(fromReview.comments.map((c) => c.id), ['c1']);
  });
});
