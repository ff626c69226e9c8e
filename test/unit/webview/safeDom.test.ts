import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decisionTone } from '../../../src/webview/runView/stateStyle';

// That the view never parses strings as HTML or code is a lint rule (eslint.config.mjs, src/webview).
describe('webview code', () => {
  it('colours ledger entries by outcome', () => {
    assert.equal(decisionTone({ kind: 'gate', summary: 'Gate failed: `npm test` exited 1 on attempt 1' }), 'red');
    assert.equal(decisionTone({ kind: 'gate', summary: 'Gate passed (npm test --failed-only) on attempt 2' }), 'green');
    assert.equal(decisionTone({ kind: 'integration', summary: 'Integration gate failed: `make` exited 2' }), 'red');
    assert.equal(decisionTone({ kind: 'critic', summary: 'Critic review 2: green — changes required earlier are done' }), 'green');
    assert.equal(decisionTone({ kind: 'critic', summary: 'Critic review of plan draft 1: changes required (2 blocking) — split it' }), 'orange');
    assert.equal(decisionTone({ kind: 'run', summary: 'Run needs you: 1 task needs you' }), 'red');
    assert.equal(decisionTone({ kind: 'plan', summary: 'Plan approved by human' }), 'plain');
  });
});
