import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PullRequestRecord, RunState } from '../../src/engine/domain/runState';
import { issueStatusLine } from '../../src/engine/text/issueStatusWords';

/** A completed run with these pull requests: only what issueStatusLine reads. */
const runWith = (pullRequests: Array<Partial<PullRequestRecord> & { number: number }>): RunState =>
  ({
    status: 'completed',
    taskOrder: ['a', 'b'],
    tasks: { a: { state: 'MERGED' }, b: { state: 'MERGED' } },
    pullRequests: Object.fromEntries(pullRequests.map((pr, i) => [i === 0 ? 'a' : 'b', { url: `https://github.example/o/r/pull/${pr.number}`, reactions: [], ...pr }])),
  }) as unknown as RunState;

const merged = { observed: { state: 'merged' } } as Partial<PullRequestRecord>;

describe("the issue's status line once the run has pull requests", () => {
  it('names every pull request of a stack, and says merged only once all are', () => {
    assert.equal(issueStatusLine(runWith([{ number: 1 }, { number: 2 }])), 'Pull requests opened: #1 (https://github.example/o/r/pull/1), #2 (https://github.example/o/r/pull/2)');
    assert.match(issueStatusLine(runWith([{ number: 1, ...merged }, { number: 2 }])), /^Pull requests opened: /);
    assert.equal(issueStatusLine(runWith([{ number: 1, ...merged }, { number: 2, mergedByTaskloom: { method: 'merge', commit: 'c', approvedBy: ['m'], at: '' } }])), 'Merged: #1 (https://github.example/o/r/pull/1), #2 (https://github.example/o/r/pull/2)');
  });

  it('says the pull request needs you when watch handed it to a person', () => {
    const handedOver = { number: 3, watch: { outcome: 'needs_human', reason: 'red for 60 min', at: '' } } as Partial<PullRequestRecord> & { number: 3 };
    assert.equal(issueStatusLine(runWith([handedOver])), 'Needs you: pull request #3 (https://github.example/o/r/pull/3)');
  });
});

describe("the issue's status line while the run goes on or waits", () => {
  it('a paused run says it is paused, never that it is running, and keeps why (which can name this machine) off the public issue', () => {
    const paused = { status: 'paused', pausedReason: 'the integration gate did not run: bwrap: cannot mount /home/alice/work', taskOrder: ['a', 'b'], tasks: { a: { state: 'MERGED' }, b: { state: 'GATING' } }, pullRequests: {} } as unknown as RunState;
    assert.equal(issueStatusLine(paused), "Paused: waiting to be resumed, why is in the run's ledger (1 of 2 done)");
  });
});
