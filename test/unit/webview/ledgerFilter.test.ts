import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DecisionFact } from '../../../src/engine/domain/decisionFact';
import type { Decision } from '../../../src/engine/domain/runState';
import { filterDecisions, parseLedgerQuery } from '../../../src/webview/runView/ledgerFilter';

const d = (seq: number, kind: Decision['kind'], fact: DecisionFact, taskId?: string): Decision => ({
  seq,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
  kind,
  ...(taskId ? { taskId } : {}),
  fact,
});

const task = (id: string, title: string) => ({ id, title, description: '', acceptance: [], dependsOn: [] });
const failed = { command: 'npm test', exitCode: 1, timedOut: false, excerpt: ['\x1b[31mFAIL\x1b[0m test/limiter.test.ts', 'Expected 429'] };
const verdict = { decision: 'changes_required' as const, summary: 'no burst test', findings: [] };

const LEDGER: Decision[] = [
  d(1, 'plan', { type: 'run_created', goal: 'rate limits', plan: { goal: 'rate limits', tasks: [task('store', 'Redis store'), task('limiter', 'Token bucket')] }, baseCommit: 'b'.repeat(40), ignoredChanges: [] }),
  d(2, 'gate', { type: 'gate_result', passed: false, attempt: 1, failed }, 'limiter'),
  d(3, 'critic', { type: 'critic_verdict', review: 1, verdict }, 'limiter'),
  d(4, 'gate', { type: 'gate_result', passed: true, attempt: 1, commands: ['npm test'] }, 'store'),
  d(5, 'human', { type: 'human_decision', action: 'retry', note: 'add the burst test' }, 'limiter'),
];

describe('ledger filter', () => {
  it('lists everything newest first when there is no query', () => {
    const page = filterDecisions(LEDGER, '  ');
    assert.deepEqual(page.shown.map((x) => x.seq), [5, 4, 3, 2, 1]);
    assert.equal(page.matching, 5);
  });

  it('needs every word, in any case, in the kind, task, summary or details', () => {
    assert.deepEqual(filterDecisions(LEDGER, 'BURST test').shown.map((x) => x.seq), [5, 3]);
    assert.deepEqual(filterDecisions(LEDGER, 'token bucket').shown.map((x) => x.seq), [1]);
    assert.deepEqual(filterDecisions(LEDGER, 'nothing-like-this').shown, []);
  });

  it('searches gate output as plain text, without its colour codes', () => {
    assert.deepEqual(filterDecisions(LEDGER, 'fail test/limiter').shown.map((x) => x.seq), [2]);
  });

  it('filters by kind:… (a prefix) and task:… (part of the id), combined with words', () => {
    assert.deepEqual(parseLedgerQuery('kind:gate Task:Lim  burst'), { kinds: ['gate'], tasks: ['lim'], words: ['burst'] });
    assert.deepEqual(filterDecisions(LEDGER, 'kind:gate').shown.map((x) => x.seq), [4, 2]);
    assert.deepEqual(filterDecisions(LEDGER, 'kind:cri').shown.map((x) => x.seq), [3]);
    assert.deepEqual(filterDecisions(LEDGER, 'task:limit').shown.map((x) => x.seq), [5, 3, 2]);
    assert.deepEqual(filterDecisions(LEDGER, 'task:limiter kind:gate failed').shown.map((x) => x.seq), [2]);
    assert.deepEqual(filterDecisions(LEDGER, 'task:store kind:human').shown, []);
  });

  it('shows at most the limit but counts every match, over 50,000 decisions', () => {
    const many = Array.from({ length: 50_000 }, (_, i) => d(i + 1, i % 2 ? 'gate' : 'critic', { type: 'overlaps_predicted', mode: 'warn', pairs: [{ first: 'some output', second: `number ${i}`, files: [`line ${i}`] }] }, `t${i % 300}`));
    const page = filterDecisions(many, 'kind:gate number');
    assert.equal(page.matching, 25_000);
    assert.equal(page.shown.length, 500);
    assert.equal(page.shown[0]!.seq, 50_000);
    // Both words, anywhere: every decision whose number has 4999 in it, newest first.
    const numbers = filterDecisions(many, 'line 4999').shown.map((x) => x.seq - 1);
    assert.deepEqual(numbers, [49_999, 49_998, 49_997, 49_996, 49_995, 49_994, 49_993, 49_992, 49_991, 49_990, 44_999, 34_999, 24_999, 14_999, 4999]);
    assert.equal(filterDecisions(many, '', 20).shown.length, 20);
  });
});
