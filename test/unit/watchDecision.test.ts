import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextWatchStep, reviewVerdict, type WatchLimits } from '../../src/engine/deliver/watchDecision';
import type { PullRequestReaction, PullRequestRecord } from '../../src/engine/domain/runState';
import type { CheckResult, PullRequestStatus, Review } from '../../src/engine/forge/forge';

const LIMITS: WatchLimits = { checkFixes: 2, reviewFixes: 2, conflictFixes: 1 };
const record = (reactions: Partial<PullRequestReaction>[] = []): PullRequestRecord => ({
  number: 7,
  url: 'https://github.example/o/r/pull/7',
  head: 'taskloom/run/integration',
  base: 'main',
  repo: 'o/r',
  remote: 'origin',
  reactions: reactions.map((r, i) => ({ id: i + 1, kind: 'check', signals: [], headSha: 'a', taskIds: [null], summary: '', status: 'pushed', replied: [], ...r })),
});
const check = (id: string, status: CheckResult['status'], output = 'FAIL test/x.test.js'): CheckResult => ({ id, name: `ci-${id}`, status, output, annotations: [] });
const review = (id: string, author: string, state: Review['state'], at: string): Review => ({ id, author, association: 'MEMBER', bot: false, state, body: '', submittedAt: at });
const status = (over: Partial<PullRequestStatus> & { state?: 'open' | 'closed' | 'merged'; mergeable?: boolean | null } = {}): PullRequestStatus => ({
  pullRequest: { number: 7, url: '', head: 'taskloom/run/integration', base: 'main', headSha: 'h1', state: over.state ?? 'open', draft: false, mergeable: over.mergeable ?? true, headRepo: 'o/r', fromFork: false },
  checks: over.checks ?? [],
  reviews: over.reviews ?? [],
  comments: over.comments ?? [],
  conversation: over.conversation ?? [],
});

describe('nextWatchStep', () => {
  it('ends when the pull request is merged, and hands a closed one to the user', () => {
    assert.deepEqual(nextWatchStep(status({ state: 'merged' }), record(), LIMITS), { kind: 'done', outcome: 'merged', reason: 'merged into main' });
    const closed = nextWatchStep(status({ state: 'closed' }), record(), LIMITS);
    assert.equal(closed.kind, 'human');
  });

  it('reacts once to each failing check; a failed fix, or the limit, hands it to the user', () => {
    const failing = status({ checks: [check('1', 'failure'), check('2', 'success')] });
    const step = nextWatchStep(failing, record(), LIMITS);
    assert.equal(step.kind, 'react');
    assert.deepEqual(step.kind === 'react' && step.input.signals, ['check:1']);
    // Reacted and pushed: the same check run is not reacted to again (a new head brings new check runs).
    assert.equal(nextWatchStep(failing, record([{ signals: ['check:1'] }]), LIMITS).kind, 'wait');
    const gaveUp = nextWatchStep(failing, record([{ signals: ['check:1'], status: 'failed', reason: 'the gate still fails' }]), LIMITS);
    assert.equal(gaveUp.kind, 'human');
    assert.match(gaveUp.kind === 'human' ? gaveUp.reason : '', /the fix for the failing check "ci-1" did not pass: the gate still fails/);
    const limit = nextWatchStep(failing, record([{ signals: ['check:0'] }, { signals: ['check:9'] }]), LIMITS);
    assert.match(limit.kind === 'human' ? limit.reason : '', /checks still fail after 2 fixes/);
  });

  it('asks the user about a failing check with nothing an agent could read', () => {
    const step = nextWatchStep(status({ checks: [check('1', 'failure', '')] }), record(), LIMITS);
    assert.equal(step.kind, 'human');
  });

  it("reacts to each request for changes not yet answered, oldest first, with that review's thread-starting comments", () => {
    const comments = [
      { id: 'c1', reviewId: 'r2', author: 'bob', association: 'MEMBER', bot: false, path: 'a.js', line: 3, body: 'rename', inReplyTo: null },
      { id: 'c2', reviewId: 'r2', author: 'me', association: 'OWNER', bot: false, path: 'a.js', line: 3, body: 'done', inReplyTo: 'c1' },
      { id: 'c3', reviewId: 'r1', author: 'bob', association: 'MEMBER', bot: false, path: 'b.js', line: 1, body: 'old', inReplyTo: null },
    ];
    const reviews = [review('r1', 'bob', 'changes_requested', '2026-01-01T00:00:00Z'), review('r2', 'bob', 'changes_requested', '2026-01-02T00:00:00Z')];
    const step = nextWatchStep(status({ checks: [check('1', 'success')], reviews, comments }), record(), LIMITS);
    assert.equal(step.kind, 'react');
    if (step.kind !== 'react') return;
    assert.deepEqual(step.input.signals, ['review:r1']);
    assert.deepEqual(step.input.comments.map((c) => c.id), ['c3']);
    const next = nextWatchStep(status({ checks: [check('1', 'success')], reviews, comments }), record([{ kind: 'review', signals: ['review:r1'] }]), LIMITS);
    assert.equal(next.kind === 'react' && next.input.signals.join(), 'review:r2');
    assert.deepEqual(next.kind === 'react' && next.input.comments.map((c) => c.id), ['c1']);
    // Both fixed: waiting for bob to look again.
    const waiting = nextWatchStep(status({ checks: [check('1', 'success')], reviews, comments }), record([{ kind: 'review', signals: ['review:r1'] }, { kind: 'review', signals: ['review:r2'] }]), LIMITS);
    assert.deepEqual(waiting, { kind: 'wait', reason: 'waiting for bob to review the fix' });
  });

  it('is green only when every check passes and a latest review approves; pending checks and no review wait', () => {
    const approved = [review('r1', 'bob', 'changes_requested', '2026-01-01T00:00:00Z'), review('r2', 'bob', 'approved', '2026-01-02T00:00:00Z')];
    assert.deepEqual(nextWatchStep(status({ checks: [check('1', 'success')], reviews: approved }), record(), LIMITS), {
      kind: 'green',
      reason: 'every check passes (1) and bob approved',
    });
    assert.equal(nextWatchStep(status({ checks: [check('1', 'pending')], reviews: approved }), record(), LIMITS).kind, 'wait');
    assert.deepEqual(nextWatchStep(status({ checks: [check('1', 'success')] }), record(), LIMITS), { kind: 'wait', reason: 'every check passes (1); waiting for a review' });
    // A dismissed review decides nothing; a comment-only review does not replace an approval.
    const dismissed = [review('r1', 'bob', 'approved', '2026-01-01T00:00:00Z'), review('r2', 'bob', 'dismissed', '2026-01-02T00:00:00Z')];
    assert.equal(reviewVerdict(dismissed), 'none');
    assert.equal(reviewVerdict([...approved, review('r3', 'bob', 'commented', '2026-01-03T00:00:00Z')]), 'approved');
  });

  it('resolves a conflict with the base once per head', () => {
    const conflicted = status({ mergeable: false, checks: [check('1', 'success')] });
    const step = nextWatchStep(conflicted, record(), LIMITS);
    assert.deepEqual(step.kind === 'react' && step.input.signals, ['conflict:h1']);
    assert.equal(nextWatchStep(conflicted, record([{ kind: 'conflict', signals: ['conflict:h0'] }]), LIMITS).kind, 'human', 'the limit of 1 resolution is reached');
  });
});
