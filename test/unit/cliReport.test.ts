import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTrace } from '../../src/cli/commands/trace';
import { formatRunSummary } from '../../src/cli/summary';
import { foldEvents } from '../../src/engine/domain/projection';
import { buildTraceReport } from '../../src/engine/report/traceReport';
import { runPhase } from '../../src/engine/domain/runPhase';
import { EventBuilder, TWO_TASK_PLAN } from '../helpers/eventBuilder';

describe('the CLI summary and trace say what happened, no more', () => {
  it('counts the critic asking for changes as "changes asked": work it approved at its first review shows 0 changes asked, not "reviews 0"', () => {
    const b = new EventBuilder();
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    b.move('b', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_CHANGES_REQUIRED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    const state = foldEvents(b.events)!;
    const summary = formatRunSummary(state);
    const header = summary.split('\n').find((line) => line.startsWith('task '))!;
    assert.match(header, /gate fails +changes asked +tokens/);
    assert.doesNotMatch(summary, /\breviews\b/);
    const trace = formatTrace(buildTraceReport(state), true, runPhase(state.status, true, state));
    assert.match(trace, /attempts 1, gate failures 0, changes asked 0,/, 'a: approved at its first review');
    assert.match(trace, /attempts 2, gate failures 0, changes asked 1,/, 'b: the critic asked once');
    assert.doesNotMatch(trace, /\breviews \d/);
  });

  it('a run no process drives any more reads stopped, its step under way interrupted, as in the editor', () => {
    const b = new EventBuilder();
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED');
    const state = foldEvents(b.events)!;
    const report = buildTraceReport(state);
    const stopped = formatTrace(report, false, runPhase(state.status, false, state));
    assert.match(stopped.split('\n')[0]!, /^Run run-1 {2}stopped {2}/);
    assert.match(stopped, /^a building, interrupted {2}Task A$/m);
    assert.match(stopped, /^b pending {2}Task B$/m);
    const driven = formatTrace(report, true, runPhase(state.status, true, state));
    assert.match(driven.split('\n')[0]!, /^Run run-1 {2}running {2}/);
    assert.match(driven, /^a building {2}Task A$/m);
  });

  it('a run cancelled before its tasks started: they read "not started (run cancelled)", in the summary and the trace, never "pending"', () => {
    const b = new EventBuilder('r', { goal: 'two tasks', tasks: [] });
    b.add({ type: 'plan_proposed', round: 1, plan: TWO_TASK_PLAN });
    b.add({ type: 'run_finished', status: 'cancelled', summary: 'the plan was not approved; nothing was run' });
    const state = foldEvents(b.events)!;
    const rows = formatRunSummary(state).split('\n').filter((line) => /^[ab] /.test(line));
    assert.equal(rows.length, 2);
    for (const row of rows) assert.match(row, /^[ab] +not started \(run cancelled\) /);
    const trace = formatTrace(buildTraceReport(state), false, runPhase(state.status, false, state));
    assert.match(trace, /^a not started \(run cancelled\) {2}Task A$/m);
    assert.doesNotMatch(trace, /pending/);
  });
});
