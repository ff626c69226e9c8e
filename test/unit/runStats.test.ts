import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyRunSummary, summariseEvent, type RunSummary } from '../../src/engine/domain/runSummary';
import { buildRunStats } from '../../src/engine/report/runStats';
import { EventBuilder, TWO_TASK_PLAN } from '../helpers/eventBuilder';
import { command, testRef } from '../helpers/gateEvents';

const summaryOf = (b: EventBuilder): RunSummary => {
  const s = emptyRunSummary(b.runId);
  for (const e of b.events) summariseEvent(s, e);
  return s;
};

const FLAKY = testRef('retries the socket');
const REGRESSION = testRef('keeps the order');

describe('the figures of taskloom stats (docs/stats.md)', () => {
  it('says null, not 0, for a rate or a cost per merged task over nothing', () => {
    const none = buildRunStats([]);
    assert.deepEqual([none.runs, none.firstPassGateRate, none.sendBackRate, none.humanDecisionsPerMergedTask, none.costUsdPerMergedTask, none.wallMsPerMergedTask], [0, null, null, null, null, null]);
    const unapproved = new EventBuilder('run-plan', TWO_TASK_PLAN);
    const stats = buildRunStats([summaryOf(unapproved)]);
    assert.equal(stats.runs, 1);
    assert.deepEqual(stats.tasks, { planned: 0, merged: 0, skipped: 0, needsYou: 0 }, 'a plan never approved ran nothing');
  });

  it('counts a gate command where it ran: not a cached result, not an advisory failure; new failures and flaky tests by test', () => {
    const b = new EventBuilder('run-gates', TWO_TASK_PLAN);
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
    b.add({ type: 'gate_result', taskId: 'a', attempt: 1, passed: false, commands: [command('npm test', 1, { newFailures: [REGRESSION], failed: [REGRESSION], flaky: [FLAKY] }), command('npm run lint', 1, undefined, { advisory: true })] });
    b.move('a', 'MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILD_FINISHED');
    b.add({ type: 'gate_result', taskId: 'a', attempt: 2, passed: false, commands: [command('npm test', 1, { newFailures: [REGRESSION], failed: [REGRESSION] })], cachedFrom: { seq: 5, taskId: 'a', attempt: 1 } });
    const stats = buildRunStats([summaryOf(b)]);
    assert.deepEqual(stats.topFailingCommands, [{ command: 'npm test', ran: 1, failures: 1, runIds: ['run-gates'] }]);
    assert.deepEqual(stats.topFailingTests.map((t) => [t.id, t.count]), [[REGRESSION.id, 1]]);
    assert.deepEqual(stats.flakyTests.map((t) => [t.name, t.runIds]), [[FLAKY.name, ['run-gates']]]);
    assert.deepEqual([stats.firstPassGateRate, stats.gatedTasks], [0, 1], 'a first gate that failed, of one task gated');
  });

  it("counts each candidate's gate where it ran, and the task's result served from the picked one once only; a candidate's failed setup is no gate", () => {
    const b = new EventBuilder('run-candidates', TWO_TASK_PLAN);
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED');
    b.add({ type: 'candidate_finished', taskId: 'a', candidate: 1, passed: false, commands: [command('npm test', 1)], filesChanged: ['a.js'] });
    b.add({ type: 'candidate_finished', taskId: 'a', candidate: 2, passed: true, commands: [command('npm test', 0)], filesChanged: ['a.js'] });
    b.add({ type: 'candidate_finished', taskId: 'a', candidate: 3, passed: false, commands: [command('npm ci', 1)], filesChanged: [], failure: 'setup failed' });
    b.move('a', 'BUILD_FINISHED');
    const served = b.events.at(-3)!.seq;
    b.add({ type: 'gate_result', taskId: 'a', attempt: 1, passed: true, commands: [command('npm test', 0)], cachedFrom: { seq: served, taskId: 'a', attempt: 1 } });
    const stats = buildRunStats([summaryOf(b)]);
    assert.deepEqual(stats.topFailingCommands, [{ command: 'npm test', ran: 2, failures: 1, runIds: ['run-candidates'] }]);
  });

  it('credits a review to the critic that gave it, and only blocking findings send work back', () => {
    const b = new EventBuilder('run-critics', TWO_TASK_PLAN);
    b.add({ type: 'plan_approved', by: 'human' });
    const critic = (agent: string, model: string) =>
      b.add({ type: 'runner_call', taskId: 'a', role: 'critic', agent, model, status: 'ok', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 }, durationMs: 10, quotaHit: false });
    critic('codex', 'gpt-5-codex');
    const nit = { severity: 'nit' as const, category: 'correctness' as const, message: 'rename it' };
    const style = { severity: 'major' as const, category: 'style' as const, message: 'long lines' };
    b.add({ type: 'critic_verdict', taskId: 'a', review: 1, verdict: { decision: 'changes_required', summary: 'nits only', findings: [nit, style] }, blocking: 0 });
    critic('claude', 'claude-opus');
    const bug = { severity: 'blocker' as const, category: 'security' as const, message: 'leaks the token' };
    b.add({ type: 'critic_verdict', taskId: 'a', review: 2, verdict: { decision: 'changes_required', summary: 'a leak', findings: [bug] }, blocking: 1 });
    const stats = buildRunStats([summaryOf(b)]);
    assert.deepEqual([stats.reviews, stats.sendBackRate, stats.sendBackCategories], [2, 0.5, { security: 1 }]);
    assert.deepEqual([stats.byAgent.codex!.reviews, stats.byAgent.codex!.sendBackRate], [1, 0]);
    assert.deepEqual([stats.byAgent.claude!.reviews, stats.byAgent.claude!.sendBackRate], [1, 1]);
    assert.deepEqual([stats.byModel['gpt-5-codex']!.costUsd, stats.byRole.critic!.calls, stats.byRole.critic!.tasks], [0.5, 2, 0]);
  });
});
