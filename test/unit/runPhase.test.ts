import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RUN_PHASE_WORDS, runPhase } from '../../src/engine/domain/runPhase';
import { LIVE_RUN_STATUSES, RUN_STATUSES } from '../../src/engine/domain/runState';

describe('run phase (what the tree, the status bar and the run view header say a run is doing)', () => {
  it('a drafted plan that nothing drives waits for approval: it was not interrupted', () => {
    assert.equal(runPhase('planning', false, 5), 'awaitingApproval');
    assert.equal(RUN_PHASE_WORDS[runPhase('planning', false, 5)], 'plan awaits your approval');
    assert.equal(runPhase('planning', true, 0), 'planning', 'the planner drafting it');
  });

  it('a live status without an engine is a stopped run, to resume', () => {
    assert.equal(runPhase('running', false, 5), 'stopped');
    assert.equal(runPhase('integrating', false, 5), 'stopped');
    assert.equal(runPhase('planning', false, 0), 'stopped', 'planning that went away before a plan was drafted');
    assert.equal(runPhase('running', true, 5), 'running');
  });

  it('an ended status is the phase whatever drives it', () => {
    for (const status of RUN_STATUSES.filter((s) => !LIVE_RUN_STATUSES.has(s))) assert.equal(runPhase(status, false, 5), status);
  });
});
