import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeCandidate } from '../../src/engine/deliver/autoMerge';
import { nextWatchStep, type WatchLimits } from '../../src/engine/deliver/watchDecision';
import type { RunEventBody } from '../../src/engine/domain/events';
import { foldEvents } from '../../src/engine/domain/projection';
import { escalationDue } from '../../src/engine/domain/pullRequestStatus';
import type { CheckResult, PullRequestStatus, Review } from '../../src/engine/forge/forge';
import { EventBuilder } from '../helpers/eventBuilder';

/**
 * What `watch` as a service folds from its events and decides from them, purely: budgets that
 * re-arm when the pull request recovers (and when a person moves a head handed to them), red
 * stretches and their escalation once, a stacked child waiting for its parent, and who may merge.
 */

const LIMITS: WatchLimits = { checkFixes: 1, reviewFixes: 1, conflictFixes: 1 };
const MINUTE = 60_000;

const URL = 'https://github.example/o/r/pull/7';
const opened: RunEventBody = { type: 'pull_request', taskId: null, number: 7, url: URL, head: 'taskloom/run/integration', base: 'main', action: 'opened', repo: 'o/r', remote: 'origin' };
const observed = (headSha: string, checks: Array<'success' | 'failure' | 'pending'>, over: { mergeable?: boolean | null; review?: 'approved' | 'none' } = {}): RunEventBody => ({
  type: 'pr_observed',
  number: 7,
  headSha,
  state: 'open',
  mergeable: over.mergeable === undefined ? true : over.mergeable,
  checks: checks.map((status, i) => ({ name: `ci-${i}`, status })),
  review: over.review ?? 'none',
});
const fixed = (b: EventBuilder, reaction: number, kind: 'check' | 'conflict', headSha: string) => {
  b.add({ type: 'pr_reaction_started', number: 7, reaction, kind, signals: [`${kind}:${reaction}`], headSha, taskIds: [null], summary: 'fix' });
  b.add({ type: 'pr_reaction_finished', number: 7, reaction, outcome: 'pushed', reason: 'pushed' });
};
const prOf = (b: EventBuilder) => foldEvents(b.events)!.pullRequests['']!;

const check = (id: string, status: CheckResult['status']): CheckResult => ({ id, name: `ci-${id}`, status, output: 'FAIL', annotations: [] });
const status = (over: { checks?: CheckResult[]; reviews?: Review[]; mergeable?: boolean | null; base?: string } = {}): PullRequestStatus => ({
  pullRequest: { number: 7, url: '', head: 'taskloom/run/stack/b', base: over.base ?? 'main', headSha: 'h9', state: 'open', draft: false, mergeable: over.mergeable === undefined ? true : over.mergeable, headRepo: 'o/r', fromFork: false },
  checks: over.checks ?? [],
  reviews: over.reviews ?? [],
  comments: [],
  conversation: [],
});
const review = (author: string, state: Review['state'], over: Partial<Review> = {}): Review => ({ id: author, author, association: 'MEMBER', bot: false, state, body: '', submittedAt: '2026-01-01T00:00:00Z', ...over });

describe('watch as a service: folds and decisions', () => {
  it('re-arms the check budget once every check passes at a head, so a later red check gets the whole budget again', () => {
    const b = new EventBuilder();
    b.add(opened);
    b.add(observed('h1', ['failure']));
    fixed(b, 1, 'check', 'h1');
    b.add(observed('h2', ['failure']));
    // One fix is the limit, and no green came between: a person is asked.
    assert.equal(nextWatchStep(status({ checks: [check('2', 'failure')] }), prOf(b), LIMITS).kind, 'human');
    b.add(observed('h2', ['success']));
    assert.deepEqual(prOf(b).rearmed, { check: 1, conflict: 1 });
    b.add(observed('h2', ['failure']));
    assert.equal(nextWatchStep(status({ checks: [check('3', 'failure')] }), prOf(b), LIMITS).kind, 'react');
  });

  it('watches a pull request handed to a person again when its head moves, with whole budgets; not while it stays', () => {
    const b = new EventBuilder();
    b.add(opened);
    b.add(observed('h1', ['failure']));
    fixed(b, 1, 'check', 'h1');
    b.add(observed('h2', ['failure']));
    b.add({ type: 'pr_watch_ended', number: 7, outcome: 'needs_human', reason: 'checks still fail after 1 fix' });
    assert.equal(prOf(b).watch?.headSha, 'h2');
    b.add(observed('h2', ['failure', 'success']));
    assert.equal(prOf(b).watch?.outcome, 'needs_human', 'the same head: still theirs');
    b.add(observed('h3', ['failure']));
    assert.equal(prOf(b).watch, undefined, 'a person pushed: watched again');
    assert.equal(nextWatchStep(status({ checks: [check('4', 'failure')] }), prOf(b), LIMITS).kind, 'react');
  });

  it('escalates a red stretch once it lasted long enough with no new head, once; a new head starts a new stretch', () => {
    const b = new EventBuilder();
    b.add(opened);
    b.add(observed('h1', ['failure']));
    const since = Date.parse(prOf(b).red!.since);
    assert.equal(escalationDue(prOf(b), since + 59 * MINUTE, 60 * MINUTE), false);
    assert.equal(escalationDue(prOf(b), since + 60 * MINUTE, 60 * MINUTE), true);
    assert.equal(escalationDue(prOf(b), since + 600 * MINUTE, 0), false, '0 never escalates');
    b.add({ type: 'pull_request_escalated', number: 7, url: URL, headSha: 'h1', red: 'checks', failing: ['ci-0'], since: prOf(b).red!.since, afterMinutes: 60 });
    assert.equal(escalationDue(prOf(b), since + 600 * MINUTE, 60 * MINUTE), false, 'once per red stretch');
    b.add(observed('h1', ['failure', 'failure']));
    assert.equal(prOf(b).red?.escalated, true, 'still the same stretch');
    b.add(observed('h2', ['failure'], { mergeable: false }));
    assert.deepEqual([prOf(b).red?.headSha, prOf(b).red?.red, prOf(b).red?.escalated], ['h2', 'conflict', undefined]);
    b.add(observed('h2', ['pending'], { mergeable: true }));
    assert.equal(prOf(b).red, undefined);
  });

  it("leaves a stacked child's conflict to its parent while the parent conflicts or is being recomputed", () => {
    const b = new EventBuilder();
    b.add(opened);
    const conflicting = status({ mergeable: false, base: 'taskloom/run/stack/a' });
    assert.deepEqual(nextWatchStep(conflicting, prOf(b), LIMITS, { number: 6, mergeable: false }), {
      kind: 'wait',
      reason: 'its conflict comes from the pull request it is based on: waiting for #6',
    });
    assert.equal(nextWatchStep(conflicting, prOf(b), LIMITS, { number: 6, mergeable: null }).kind, 'wait');
    const own = nextWatchStep(conflicting, prOf(b), LIMITS, { number: 6, mergeable: true });
    assert.equal(own.kind === 'react' && own.input.kind, 'conflict');
  });

  it('merges only what is green and approved by a person, with no writer asking for changes, from the bottom of a stack', () => {
    const passing = [check('1', 'success')];
    assert.deepEqual(mergeCandidate(status({ checks: passing, reviews: [review('alice', 'approved')] }), false), { ready: true, approvers: ['alice'] });
    assert.deepEqual(mergeCandidate(status({ checks: passing, reviews: [review('bot[bot]', 'approved', { bot: true })] }), false), { ready: false, why: 'nobody with write access approved it' });
    assert.deepEqual(mergeCandidate(status({ checks: passing, reviews: [review('alice', 'approved'), review('bob', 'changes_requested')] }), false), { ready: false, why: 'bob requested changes' });
    assert.equal(mergeCandidate(status({ checks: [check('1', 'pending')], reviews: [review('alice', 'approved')] }), false).ready, false);
    assert.equal(mergeCandidate(status({ checks: passing, reviews: [review('alice', 'approved')], mergeable: null }), false).ready, false);
    assert.deepEqual(mergeCandidate(status({ checks: passing, reviews: [review('alice', 'approved')], base: 'taskloom/run/stack/a' }), true), {
      ready: false,
      why: 'it is based on taskloom/run/stack/a, whose pull request is not merged yet',
    });
  });
});
