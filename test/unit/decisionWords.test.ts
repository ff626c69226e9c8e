import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DecisionFact } from '../../src/engine/domain/decisionFact';
import { wordDecision } from '../../src/engine/text/decisionWords';

const summary = (fact: DecisionFact, taskId?: string): string => wordDecision({ fact, ...(taskId ? { taskId } : {}) }).summary;

describe('decision words', () => {
  it('words the merge queue’s entries with the task they are about', () => {
    assert.equal(summary({ type: 'merge_queued', commit: 'abcdef0123456789' }, 'api'), '"api" queued for merge at abcdef0123');
    assert.equal(summary({ type: 'merge_done', commit: 'abcdef0123456789', how: 'merged', into: 'taskloom/run-1' }, 'api'), '"api" merged as abcdef0123 into taskloom/run-1');
    assert.equal(summary({ type: 'merge_done', commit: 'abcdef0123456789', how: 'no_changes', into: 'integration' }, 'api'), '"api" had no changes to merge into integration');
    assert.equal(summary({ type: 'merge_conflict', files: ['a.ts', 'b.ts'] }, 'api'), 'Merging "api" conflicts in a.ts, b.ts');
    assert.equal(summary({ type: 'task_synced', integrationCommit: '0123456789abcdef', conflicts: [] }, 'ui'), '"ui" took in integration 0123456789: merged cleanly');
  });

  it('words a gate from its failed command and keeps the excerpt as the details', () => {
    const failed = { command: 'npm test', exitCode: null, timedOut: true, excerpt: ['FAIL a.test.ts'] };
    assert.deepEqual(wordDecision({ fact: { type: 'gate_result', passed: false, attempt: 2, failed } }), { summary: 'Gate failed: `npm test` timed out on attempt 2', details: ['FAIL a.test.ts'] });
    const integration = { type: 'gate_result' as const, integration: true as const, passed: true, attempt: 1, commands: ['make'], commit: 'fedcba9876543210', taskIds: ['a', 'b'] };
    assert.equal(summary(integration), 'Integration gate passed (make) on a, b (fedcba9876)');
  });

  it('says why a gate was not run again, true whether the actor changed nothing or a restarted attempt made the same files', () => {
    assert.equal(summary({ type: 'gate_skipped', attempt: 3, failedAttempt: 2 }), 'Gate not run: attempt 3 changed no file since the gate failed on attempt 2, so that failure stands');
    assert.equal(summary({ type: 'gate_skipped', attempt: 1, failedAttempt: 1 }), 'Gate not run: attempt 1, made again after the run stopped, has the same files the gate failed on, so that failure stands');
  });

  it('words pull request entries, naming whose pull request it is', () => {
    const opened = { type: 'pull_request' as const, number: 7, action: 'opened' as const, url: 'https://x/7', head: 'h', base: 'main' };
    assert.equal(summary(opened, 'api'), 'Pull request #7 for "api" opened: https://x/7 (h → main)');
    assert.equal(summary({ type: 'pr_watch_ended', number: 7, outcome: 'needs_human', reason: 'out of tries' }), 'Pull request #7 needs you: out of tries');
  });

  it('words what watch ignored: what, whose, and why', () => {
    const review = { type: 'pr_input_ignored' as const, number: 7, input: 'review' as const, id: '3', author: 'mallory', why: 'no_write_access' as const, association: 'NONE', permission: 'read', state: 'changes_requested', excerpt: 'add x' };
    assert.equal(summary(review), 'Pull request #7: ignored the review (changes requested) by mallory: no write access (NONE, permission read)');
    const bot = { type: 'pr_input_ignored' as const, number: 7, input: 'review_comment' as const, id: '4', author: 'x[bot]', why: 'untrusted_bot' as const, association: 'NONE', path: 'a.js', excerpt: '' };
    assert.equal(summary(bot), 'Pull request #7: ignored the review comment on a.js by x[bot]: a bot not in taskloom.pullRequests.trustedBots');
    const fork = { type: 'pr_input_ignored' as const, number: 7, input: 'check' as const, id: 'check-1', author: 'm/r', why: 'fork_check' as const, excerpt: 'lint' };
    assert.equal(summary(fork), "Pull request #7: ignored the output of the failing check from m/r: it ran on a fork, whose output is not handed to an agent");
  });
});
