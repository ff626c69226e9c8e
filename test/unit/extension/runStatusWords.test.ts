import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { foldEvents } from '../../../src/engine/domain/projection';
import { countTasks } from '../../../src/engine/domain/taskCounts';
import { runStatusWords } from '../../../src/extension/state/runStatusWords';
import { EventBuilder } from '../../helpers/eventBuilder';
import { pausedOnBase } from '../../helpers/gateEvents';

const plan: Plan = {
  goal: 'grow textkit',
  tasks: ['slugify', 'word-count', 'title-case', 'summary'].map((id) => ({ id, title: id, description: id, acceptance: [], dependsOn: id === 'summary' ? ['word-count'] : [] })),
};

function entryOf(b: EventBuilder) {
  const state = foldEvents(b.events)!;
  const summary = { runId: state.runId, goal: state.goal, status: state.status, createdAt: '', updatedAt: '', lastSeq: state.lastSeq, ...countTasks(state), active: false, planApproved: state.planApproved, foreign: false, pullRequestsToWatch: 0 };
  return { folder: '/repo', summary, state };
}

describe('the status bar: where a stopped run says who needs you, updated as they act', () => {
  it('names who needs you now, and stops naming a task once it was decided', () => {
    const b = new EventBuilder('r', plan);
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('slugify', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    b.move('word-count', 'BUILD_STARTED', 'AGENT_FAILED').move('title-case', 'BUILD_STARTED', 'AGENT_FAILED');
    b.move('summary', 'DEPENDENCY_FAILED');
    b.add({ type: 'run_finished', status: 'needs_human', summary: '1/4 merged' });
    const stopped = runStatusWords(entryOf(b));
    assert.equal(stopped.text, '$(warning) Taskloom 1/4 · 2 need you · $0');
    assert.match(stopped.tooltip, /needs you: 1 of 4 tasks merged, 1 skipped\.\nword-count and title-case need you: see Needs You\./);
    assert.equal(stopped.attention, true);

    b.move('title-case', 'HUMAN_SKIPPED');
    b.add({ type: 'run_finished', status: 'needs_human', summary: '1/4 merged, 2 skipped' });
    const after = runStatusWords(entryOf(b));
    assert.equal(after.text, '$(warning) Taskloom 1/4 · 1 needs you · $0');
    assert.match(after.tooltip, /1 of 4 tasks merged, 2 skipped\.\nword-count needs you/);
  });

  it('a paused run says why and asks for attention; a running one neither', () => {
    const b = new EventBuilder('r', plan);
    b.add({ type: 'plan_approved', by: 'human' });
    b.add({ type: 'run_paused', reason: 'the actor hit a usage limit' });
    const paused = runStatusWords(entryOf(b));
    assert.equal(paused.attention, true);
    assert.match(paused.tooltip, /Paused: the actor hit a usage limit\. Resume it when you are ready\./);
    const fresh = entryOf(new EventBuilder('r', plan));
    const running = runStatusWords({ ...fresh, summary: { ...fresh.summary, status: 'running', active: true } });
    assert.equal(running.attention, false);
    assert.doesNotMatch(running.text, /need/);
  });

  it('a run paused for a choice about its base says the choice, not a Resume that would only pause again', () => {
    const b = new EventBuilder('r', plan);
    b.add({ type: 'plan_approved', by: 'human' });
    for (const body of pausedOnBase('a'.repeat(40))) b.add(body);
    const { tooltip } = runStatusWords(entryOf(b));
    assert.match(tooltip, /\nPaused for your choice: `npm run lint` fails on main .*: treat it as advisory for this run .*, keep it as required .*, or cancel the run\.\n/);
    assert.doesNotMatch(tooltip, /Resume it/);
  });
});
