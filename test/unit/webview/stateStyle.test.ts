import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decisionTone } from '../../../src/webview/runView/stateStyle';

// That the view never parses strings as HTML or code is a lint rule (eslint.config.mjs, src/webview).
describe('decisionTone', () => {
  it('colours ledger entries by outcome', () => {
    const failed = { command: 'npm test', exitCode: 1, timedOut: false, excerpt: [] };
    const gate = { type: 'gate_result' as const, attempt: 1, commands: ['npm test'] };
    assert.equal(decisionTone({ kind: 'gate', fact: { ...gate, passed: false, failed } }), 'red');
    assert.equal(decisionTone({ kind: 'gate', fact: { ...gate, passed: true } }), 'green');
    assert.equal(decisionTone({ kind: 'integration', fact: { ...gate, integration: true as const, passed: false, failed } }), 'red');
    assert.equal(decisionTone({ kind: 'critic', fact: { type: 'critic_verdict', review: 2, verdict: { decision: 'green', summary: 'changes required earlier are done', findings: [] } } }), 'green');
    const split = { decision: 'changes_required' as const, summary: 'split it', findings: [] };
    assert.equal(decisionTone({ kind: 'critic', fact: { type: 'plan_reviewed', round: 1, blocking: 2, verdict: split } }), 'orange');
    assert.equal(decisionTone({ kind: 'run', fact: { type: 'run_finished', status: 'needs_human', summary: '1 task needs you' } }), 'red');
    assert.equal(decisionTone({ kind: 'plan', fact: { type: 'plan_approved', by: 'human' } }), 'plain');
  });
});
