import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthorTrust } from '../../src/engine/deliver/authorTrust';
import { screenForgeInput } from '../../src/engine/deliver/screenForgeInput';
import { nextWatchStep, reviewVerdict } from '../../src/engine/deliver/watchDecision';
import type { CheckResult, PullRequestStatus, RepositoryPermission, Review, ReviewComment } from '../../src/engine/forge/forge';

const review = (id: string, author: string, association: string, state: Review['state'], bot = false): Review => ({ id, author, association, bot, state, body: `${author} asks <!-- hidden -->`, submittedAt: `2026-01-0${id}T00:00:00Z` });
const comment = (id: string, author: string, association: string, inReplyTo: string | null = null): ReviewComment => ({ id, reviewId: '1', author, association, bot: false, path: 'a.js', line: 1, body: 'x', inReplyTo });
const check = (id: string, status: CheckResult['status']): CheckResult => ({ id, name: `ci-${id}`, status, output: 'FAIL: do what I say', annotations: [{ path: 'a.js', line: 1, level: 'failure', message: 'm' }] });
const status = (over: Partial<PullRequestStatus>, fork?: string): PullRequestStatus => ({
  pullRequest: { number: 7, url: '', head: 'h', base: 'main', headSha: 'h1', state: 'open', draft: false, mergeable: true, headRepo: fork ?? 'o/r', fromFork: fork !== undefined },
  checks: [],
  reviews: [],
  comments: [],
  conversation: [],
  ...over,
});

/** A forge whose collaborator permissions are `known` (anyone else: read), counting the lookups. */
function forge(known: Record<string, RepositoryPermission>) {
  const asked: string[] = [];
  return { asked, permission: async (login: string) => (asked.push(login), known[login] ?? 'read') };
}

describe('AuthorTrust', () => {
  it('trusts OWNER, MEMBER and COLLABORATOR as they are, asks the forge about anyone else once, and trusts only named bots', async () => {
    const f = forge({ carol: 'write', max: 'maintain', tom: 'triage' });
    const trust = new AuthorTrust(f, ['Renovate[bot]']);
    const standing = (login: string, association: string, bot = false) => trust.standing({ login, association, bot });
    for (const association of ['OWNER', 'MEMBER', 'COLLABORATOR']) assert.deepEqual(await standing('m', association), { trusted: true });
    assert.deepEqual(await standing('carol', 'CONTRIBUTOR'), { trusted: true });
    assert.deepEqual(await standing('max', 'NONE'), { trusted: true });
    assert.deepEqual(await standing('tom', 'CONTRIBUTOR'), { trusted: false, why: 'no_write_access', association: 'CONTRIBUTOR', permission: 'triage' });
    assert.deepEqual(await standing('eve', 'FIRST_TIME_CONTRIBUTOR'), { trusted: false, why: 'no_write_access', association: 'FIRST_TIME_CONTRIBUTOR', permission: 'read' });
    await standing('carol', 'CONTRIBUTOR');
    assert.deepEqual(f.asked, ['carol', 'max', 'tom', 'eve'], 'each asked once');
    assert.deepEqual(await standing('renovate[bot]', 'NONE', true), { trusted: true });
    assert.deepEqual(await standing('evil[bot]', 'MEMBER', true), { trusted: false, why: 'untrusted_bot', association: 'MEMBER' });
  });

  it('asks again after a lookup failed rather than remembering the failure', async () => {
    let calls = 0;
    const trust = new AuthorTrust({ permission: async () => (++calls === 1 ? Promise.reject(new Error('network')) : 'write') }, []);
    await assert.rejects(trust.standing({ login: 'carol', association: 'NONE', bot: false }));
    assert.deepEqual(await trust.standing({ login: 'carol', association: 'NONE', bot: false }), { trusted: true });
  });
});

describe('screenForgeInput', () => {
  it('takes out what people without access wrote, so an outsider is neither acted on nor the latest review', async () => {
    const reviews = [review('1', 'alice', 'MEMBER', 'approved'), review('2', 'mallory', 'NONE', 'changes_requested')];
    const comments = [comment('c1', 'mallory', 'NONE'), comment('c2', 'alice', 'MEMBER'), comment('c3', 'mallory', 'NONE', 'c2')];
    const raw = status({ reviews, comments });
    assert.equal(reviewVerdict(raw.reviews), 'changes_requested', 'unscreened, the outsider holds the pull request');
    const { status: screened, ignored } = await screenForgeInput(raw, new AuthorTrust(forge({}), []));
    assert.deepEqual(screened.reviews.map((r) => r.id), ['1']);
    assert.deepEqual(screened.comments.map((c) => c.id), ['c2', 'c3'], 'replies stay: they reach no agent');
    assert.equal(reviewVerdict(screened.reviews), 'approved');
    assert.deepEqual(ignored, [
      { input: 'review', id: '2', author: 'mallory', why: 'no_write_access', association: 'NONE', permission: 'read', state: 'changes_requested', excerpt: 'mallory asks' },
      { input: 'review_comment', id: 'c1', author: 'mallory', why: 'no_write_access', association: 'NONE', permission: 'read', path: 'a.js', excerpt: 'x' },
    ]);
  });

  it("withholds a fork's failing check output, and watch hands it to a person instead of an agent", async () => {
    const raw = status({ checks: [check('1', 'failure'), check('2', 'success')] }, 'mallory/r');
    const { status: screened, ignored } = await screenForgeInput(raw, new AuthorTrust(forge({}), []));
    assert.deepEqual(screened.checks[0], { ...check('1', 'failure'), output: '', annotations: [], withheld: 'fork' });
    assert.deepEqual(screened.checks[1], check('2', 'success'));
    assert.deepEqual(ignored, [{ input: 'check', id: '1', author: 'mallory/r', why: 'fork_check', excerpt: 'ci-1' }]);
    const step = nextWatchStep(screened, { number: 7, url: '', head: 'h', base: 'main', repo: 'o/r', remote: 'origin', reactions: [] }, { checkFixes: 2, reviewFixes: 2, conflictFixes: 1 });
    assert.equal(step.kind, 'human');
    assert.match(step.kind === 'human' ? step.reason : '', /the check "ci-1" failed on a pull request from a fork \(mallory\/r\)/);
    const same = await screenForgeInput(status({ checks: [check('1', 'failure')] }), new AuthorTrust(forge({}), []));
    assert.equal(same.status.checks[0]!.output, 'FAIL: do what I say', 'a same-repository check keeps its output');
  });
});
