import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actionAttrs, messageFor, type Action, type ActionElement } from '../../../src/webview/runView/actions';

/** An element as messageFor reads it: by its attributes only. */
const element = (attrs: Record<string, string>): ActionElement => ({ getAttribute: (name) => attrs[name] ?? null });
const message = (action: Action, target?: Parameters<typeof actionAttrs>[1]) => messageFor(element(actionAttrs(action, target)));

describe('run view actions', () => {
  it('turn the decision buttons into the messages the extension runs commands for', () => {
    assert.deepEqual(message('decide', { taskId: 'a', choice: 'retry' }), { type: 'decideTask', taskId: 'a', action: 'retry' });
    assert.deepEqual(message('decide', { taskId: 'a', choice: 'resolve' }), { type: 'decideTask', taskId: 'a', action: 'resolve' });
    assert.deepEqual(message('plan', { choice: 'approve' }), { type: 'decidePlan', decision: 'approve' });
    assert.deepEqual(message('plan', { choice: 'cancel' }), { type: 'decidePlan', decision: 'cancel' });
    assert.deepEqual(message('deliver', { choice: 'pullRequest' }), { type: 'deliver', how: 'pullRequest' });
    assert.deepEqual(message('plan-document'), { type: 'showPlanDocument' });
  });

  it('send a review’s seq with its diff, so the diff is the one that review read', () => {
    assert.deepEqual(message('diff', { taskId: 'a', seq: 42 }), { type: 'showTaskDiff', taskId: 'a', reviewSeq: 42 });
    assert.deepEqual(message('diff', { taskId: 'a' }), { type: 'showTaskDiff', taskId: 'a' });
  });

  it('turn the plan review’s fixes and a stopped run’s way on into messages', () => {
    assert.deepEqual(message('fix-plan', { taskId: 'flaky', choice: 'fill' }), { type: 'fixPlanTask', taskId: 'flaky', fix: 'fill' });
    assert.deepEqual(message('fix-plan', { taskId: 'flaky', choice: 'drop' }), { type: 'fixPlanTask', taskId: 'flaky', fix: 'drop' });
    assert.equal(message('fix-plan', { choice: 'drop' }), undefined, 'a fix names its task');
    assert.deepEqual(message('next-step', { choice: 'startWithPlan' }), { type: 'nextStep', step: 'startWithPlan' });
    assert.deepEqual(message('next-step', { choice: 'keepAsRequired' }), { type: 'nextStep', step: 'keepAsRequired' });
    assert.equal(message('next-step', { choice: 'rm -rf' }), undefined);
  });

  it('ask to choose another of a task’s candidates, naming the task', () => {
    assert.deepEqual(message('choose-candidate', { taskId: 'a' }), { type: 'chooseCandidate', taskId: 'a' });
    assert.equal(message('choose-candidate'), undefined);
  });

  it('name the candidate of a card: choosing it skips the list, and its diff is its own', () => {
    assert.deepEqual(message('choose-candidate', { taskId: 'a', candidate: 3 }), { type: 'chooseCandidate', taskId: 'a', candidate: 3 });
    assert.deepEqual(message('diff', { taskId: 'a', candidate: 2 }), { type: 'showTaskDiff', taskId: 'a', candidate: 2 });
    assert.deepEqual(messageFor(element({ 'data-action': 'diff', 'data-task': 'a', 'data-candidate': '-1' })), { type: 'showTaskDiff', taskId: 'a' });
  });

  it('ask for a snapshot’s restore by its ledger entry', () => {
    assert.deepEqual(message('restore-snapshot', { taskId: 'a', seq: 7 }), { type: 'restoreSnapshot', seq: 7 });
    assert.equal(message('restore-snapshot', { taskId: 'a' }), undefined);
  });

  it('post nothing for a choice they do not know, or a decision without its task', () => {
    assert.equal(message('decide', { taskId: 'a', choice: 'merge' }), undefined);
    assert.equal(message('decide', { choice: 'retry' }), undefined);
    assert.equal(message('plan', { choice: 'delete' }), undefined);
    assert.equal(message('deliver', {}), undefined);
  });
});
