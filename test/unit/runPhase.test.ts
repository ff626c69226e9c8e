import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../src/engine/domain/plan';
import { foldEvents } from '../../src/engine/domain/projection';
import { RUN_PHASE_WORDS, runPhase } from '../../src/engine/domain/runPhase';
import { LIVE_RUN_STATUSES, RUN_STATUSES } from '../../src/engine/domain/runState';
import { EventBuilder } from '../helpers/eventBuilder';

const plan: Plan = {
  goal: 'trim and pad',
  tasks: ['trim', 'pad'].map((id) => ({ id, title: id, description: id, acceptance: [], dependsOn: [] })),
};

describe('run phase (what the tree, the status bar, the run view and the CLI say a run is doing)', () => {
  it('a drafted plan that nothing drives waits for approval: it was not interrupted', () => {
    // As a planner's drafted plan leaves it: planning, with tasks, and no engine at work.
    const drafted = { ...foldEvents(new EventBuilder('r', plan).events)!, status: 'planning' as const };
    assert.equal(runPhase('planning', false, drafted), 'awaitingApproval');
    assert.equal(RUN_PHASE_WORDS.awaitingApproval, 'plan awaits your approval');
    assert.equal(runPhase('planning', false), 'awaitingApproval', 'not loaded yet: taken as drafted');
    assert.equal(runPhase('planning', true, drafted), 'planning');
  });

  it('a live status without an engine, with work an engine would take up, is a stopped run, to resume', () => {
    const b = new EventBuilder('r', plan);
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('trim', 'BUILD_STARTED');
    const state = foldEvents(b.events)!;
    assert.equal(runPhase('running', false, state), 'stopped');
    assert.equal(runPhase('integrating', false, state), 'stopped');
    assert.equal(runPhase('running', true, state), 'running');
  });

  it('a run whose every task left waits for a person (one resolved by hand) needs you: nothing was interrupted', () => {
    const b = new EventBuilder('r', plan);
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('pad', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    b.move('trim', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_CONFLICTED', 'HAND_RESOLVE_STARTED');
    const state = foldEvents(b.events)!;
    assert.equal(state.status, 'running', 'a task moved, so the projection says running');
    assert.equal(runPhase(state.status, false, state), 'needs_human');
  });

  it('an ended status is the phase whatever drives it', () => {
    for (const status of RUN_STATUSES.filter((s) => !LIVE_RUN_STATUSES.has(s))) assert.equal(runPhase(status, false), status);
  });
});
