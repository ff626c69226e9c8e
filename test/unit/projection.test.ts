import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents, project } from '../../src/engine/domain/projection';
import { wordDecision } from '../../src/engine/text/decisionWords';
import { EventBuilder } from '../helpers/eventBuilder';

const usage = (inputTokens: number, costUsd: number) => ({ inputTokens, outputTokens: 10, cacheReadTokens: 5, cacheWriteTokens: 0, costUsd });

describe('projection', () => {
  it('starts every planned task PENDING with the plan in the ledger', () => {
    const state = foldEvents(new EventBuilder().events)!;
    assert.deepEqual(state.taskOrder, ['a', 'b']);
    assert.equal(state.tasks.a!.state, 'PENDING');
    assert.match(wordDecision(state.decisions[0]!).summary, /Plan for "two tasks": 2 task/);
    assert.ok(wordDecision(state.decisions[0]!).details.some((d) => d.includes('b builds on a')));
  });

  it('follows a task through gate failure, changes required and green, counting attempts', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    b.move('a', 'CRITIC_CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    const a = foldEvents(b.events)!.tasks.a!;
    assert.equal(a.state, 'GREEN');
    assert.equal(a.attempt, 3);
    assert.equal(a.gateFailures, 1);
    assert.equal(a.reviewCycles, 1);
    assert.equal(a.attempts.length, 3);
    assert.ok(a.attempts.every((at) => at.endedAt), 'every attempt has ended');
    assert.equal(a.transitions.length, 11);
    assert.ok(a.finishedAt);
  });

  it('starts a new try with fresh counters after an interruption, and asks for a clean worktree', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_FAILED', 'RETRY_BUILD', 'INTERRUPTED');
    const a = foldEvents(b.events)!.tasks.a!;
    assert.equal(a.state, 'PENDING');
    assert.equal(a.attempt, 0);
    assert.equal(a.gateFailures, 0);
    assert.equal(a.needsFreshWorktree, true);
    assert.equal(a.attempts.length, 2, 'history is kept');
  });

  it('keeps the attempt count across a quota pause so the next try is a new attempt', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'QUOTA_EXHAUSTED');
    b.add({ type: 'run_paused', reason: 'quota' });
    const state = foldEvents(b.events)!;
    assert.equal(state.status, 'paused');
    assert.equal(state.tasks.a!.attempt, 1);
    assert.equal(state.tasks.a!.state, 'PENDING');
  });

  it('adds usage per role, per task and in total', () => {
    const b = new EventBuilder();
    const call = (taskId: string | null, role: 'actor' | 'critic' | 'planner', u: ReturnType<typeof usage>) =>
      b.add({ type: 'runner_call', taskId, role, agent: 'scripted', model: 'scripted', status: 'ok', usage: u, durationMs: 5, quotaHit: false, sessionId: `s-${role}` });
    call('a', 'actor', usage(100, 0.01));
    call('a', 'critic', usage(50, 0.002));
    call('b', 'actor', usage(30, 0.003));
    call(null, 'planner', usage(7, 0.0001));
    const state = foldEvents(b.events)!;
    assert.equal(state.usage.calls, 4);
    assert.equal(state.usage.total.inputTokens, 187);
    assert.equal(state.usage.total.costUsd, 0.0151);
    assert.equal(state.usage.byRole.actor!.inputTokens, 130);
    assert.equal(state.usage.byTask.a!.costUsd, 0.012);
    assert.equal(state.tasks.a!.actorSessionId, 's-actor');
    assert.equal(state.usage.byRole.planner!.outputTokens, 10);
  });

  it('records gate results, verdicts, human decisions, merges and conflicts in the ledger', () => {
    const b = new EventBuilder();
    b.add({ type: 'gate_result', taskId: 'a', attempt: 1, passed: false, commands: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 9, output: 'x' }] });
    b.add({
      type: 'critic_verdict',
      taskId: 'a',
      review: 1,
      blocking: 1,
      verdict: { decision: 'changes_required', summary: 'missing test', findings: [{ file: 'a.js', line: 3, severity: 'major', category: 'requirements', message: 'no test' }] },
    });
    b.move('a', 'BUILD_STARTED', 'STUCK_ABORTED');
    b.add({ type: 'human_decision', taskId: 'a', action: 'retry', note: 'try harder' });
    b.move('a', 'HUMAN_RETRY');
    b.add({ type: 'integration_prepared', branch: 'taskloom/run-1/integration', path: '/wt' });
    b.add({ type: 'merge_conflict', taskId: 'a', files: ['x.js'] });
    b.add({ type: 'merge_done', taskId: 'b', commit: 'c'.repeat(40), alreadyMerged: false });
    const state = foldEvents(b.events)!;
    const kinds = state.decisions.map((d) => d.kind);
    assert.deepEqual(kinds, ['plan', 'gate', 'critic', 'human', 'conflict', 'merge']);
    assert.match(wordDecision(state.decisions[1]!).summary, /`npm test` exited 1/);
    assert.match(wordDecision(state.decisions[2]!).details[0]!, /a\.js:3: no test/);
    assert.equal(state.tasks.a!.humanNote, 'try harder');
    assert.deepEqual(state.integration.conflicts, [{ taskId: 'a', files: ['x.js'] }]);
    assert.deepEqual(state.integration.merged, ['b']);
  });

  it('is pure: project leaves the previous state untouched', () => {
    const b = new EventBuilder();
    const before = foldEvents(b.events)!;
    const copy = structuredClone(before);
    const event = b.move('a', 'BUILD_STARTED').events.at(-1)!;
    const after = project(before, event);
    assert.deepEqual(before, copy);
    assert.equal(after.tasks.a!.state, 'BUILDING');
  });

  it('rejects a log whose transition disagrees with the state machine', () => {
    const b = new EventBuilder();
    b.add({ type: 'task_transition', taskId: 'a', event: 'CRITIC_GREEN', from: 'PENDING', to: 'GREEN', reason: 'forged' });
    assert.throws(() => foldEvents(b.events), /Illegal task transition/);
  });

  it('rejects events out of order and events for unknown tasks', () => {
    const b = new EventBuilder();
    const state = foldEvents(b.events)!;
    assert.throws(() => project(state, { ...b.events[0]!, type: 'warning', message: 'x' } as never), /not after/);
    b.add({ type: 'worktree_prepared', taskId: 'ghost', branch: 'x', path: 'y', baseCommit: 'z', fresh: true });
    assert.throws(() => foldEvents(b.events), /unknown task "ghost"/);
  });

  it('folding from a snapshot equals folding the whole log', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    b.move('b', 'BUILD_STARTED');
    const whole = foldEvents(b.events)!;
    const snapshot = foldEvents(b.events.slice(0, 3))!;
    assert.deepEqual(foldEvents(b.events.slice(3), snapshot), whole);
  });
});
