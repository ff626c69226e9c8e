import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../../src/engine/domain/projection';
import { elapsedLabel, layoutTimeline, nextZoom, PHASE_LOOK, scrollForZoom, STATE_PHASE, tickStep, TIMELINE_ZOOMS, type TimelinePhase } from '../../../src/webview/runView/timelineLayout';
import { EventBuilder } from '../../helpers/eventBuilder';

// EventBuilder stamps event n at 2026-01-01T00:00:0n (one second apart).
const T0 = Date.UTC(2026, 0, 1);
const at = (seconds: number) => T0 + seconds * 1000;

function run() {
  const b = new EventBuilder();
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_FAILED', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
  b.move('b', 'BUILD_STARTED', 'BUILD_FINISHED');
  const state = foldEvents(b.events)!;
  return { state, tasks: state.taskOrder.map((id) => state.tasks[id]!) };
}

describe('timeline layout', () => {
  it('gives each state a span until the next transition, and a settled task a marker instead of a last span', () => {
    const { tasks } = run();
    const layout = layoutTimeline(tasks, [], at(20), { chartWidth: 1000, labelWidth: 100 });
    const [a, b] = layout.rows;
    assert.deepEqual(a!.spans.map((s) => s.state), ['BUILDING', 'GATING', 'MECHANICAL_FAILED', 'BUILDING', 'GATING', 'CRITIC_REVIEWING']);
    assert.ok(a!.spans.every((s) => !s.open));
    assert.equal(a!.settledAt?.state, 'GREEN');
    assert.equal(a!.settledAt?.at, at(7));
    // b is still gating: its last span runs on to now.
    const last = b!.spans.at(-1)!;
    assert.equal(last.state, 'GATING');
    assert.equal(last.open, true);
    assert.equal(last.to, at(20));
    assert.equal(b!.settledAt, undefined);
  });

  it('draws attempts from their start to their end, or to now while one runs', () => {
    const { tasks } = run();
    const layout = layoutTimeline(tasks, [], at(20), { chartWidth: 1000 });
    const [a, b] = layout.rows;
    assert.deepEqual(a!.attempts.map((x) => [x.number, x.from, x.to, x.open]), [[1, at(1), at(3), false], [2, at(4), at(7), false]]);
    assert.equal(b!.attempts[0]!.open, true);
    assert.equal(b!.attempts[0]!.to, at(20));
  });

  it('maps time linearly onto the chart, right of the labels, and stacks rows below the axis', () => {
    const { tasks } = run();
    const layout = layoutTimeline(tasks, [], at(20), { chartWidth: 1000, labelWidth: 100, axisHeight: 24, rowHeight: 30 });
    // The axis starts when the first task started (a's build at 1s), not when the run was created.
    assert.equal(layout.start, at(1));
    assert.equal(layout.end, at(20));
    const first = layout.rows[0]!.spans[0]!;
    assert.equal(first.x, 100);
    assert.equal(first.width, 1000 * (1 / 19));
    assert.deepEqual(layout.rows.map((r) => r.y), [24, 54]);
    assert.equal(layout.height, 24 + 2 * 30);
    for (const row of layout.rows) for (const s of [...row.spans, ...row.attempts]) assert.ok(s.x >= 100 && s.x + s.width <= 1100 + 1e-9);
    assert.equal(layout.ticks[0]!.x, 100);
    assert.equal(layout.ticks[0]!.label, '0');
  });

  it('keeps an instant visible with a minimum bar width', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED');
    const state = foldEvents(b.events)!;
    const layout = layoutTimeline([state.tasks.a!], [], Date.parse(state.updatedAt) + 3_600_000, { chartWidth: 500, minBarWidth: 3 });
    assert.ok(layout.rows[0]!.attempts[0]!.width >= 3);
    assert.equal(layoutTimeline([], [], at(0)).rows.length, 0);
  });

  it('picks round tick steps and labels time since the start', () => {
    assert.equal(tickStep(60_000, 6), 10_000);
    assert.equal(tickStep(3_600_000, 8), 10 * 60_000);
    assert.equal(tickStep(5_000, 10), 1000);
    assert.equal(elapsedLabel(0), '0');
    assert.equal(elapsedLabel(45_000), '45s');
    assert.equal(elapsedLabel(90_000), '1m 30s');
    assert.equal(elapsedLabel(2 * 3_600_000 + 15 * 60_000 + 5_000), '2h 15m');
  });

  it('leaves planning and approval out of the axis, and says how long they took', () => {
    const b = new EventBuilder();
    b.wait(10 * 60_000); // ten minutes of planning and approval
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
    const state = foldEvents(b.events)!;
    const tasks = state.taskOrder.map((id) => state.tasks[id]!);
    const now = Date.parse(state.updatedAt) + 8_000;
    const layout = layoutTimeline(tasks, [], now, { chartWidth: 1000, labelWidth: 100 }, Date.parse(state.createdAt));
    assert.equal(layout.start, Date.parse(state.tasks.a!.transitions[0]!.at));
    assert.equal(layout.beforeStart, 10 * 60_000 + 1000);
    // The work fills the chart instead of its last tenth.
    const building = layout.rows[0]!.spans[0]!;
    assert.equal(building.x, 100);
    assert.equal(building.width, 1000 * (1000 / 9000));
    assert.ok(layout.ticks.every((t) => t.x >= 100));
  });

  it('colours spans by phase: building, gate, critic and merge queue apart', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED');
    const state = foldEvents(b.events)!;
    const layout = layoutTimeline([state.tasks.a!], [], Date.parse(state.updatedAt) + 1000);
    assert.deepEqual(
      layout.rows[0]!.spans.map((s) => [s.state, s.phase]),
      [['BUILDING', 'build'], ['GATING', 'gate'], ['CRITIC_REVIEWING', 'critic'], ['GREEN', 'queue'], ['MERGING', 'queue']],
    );
  });

  it('shows the integration row’s phases: merging, the integration gate (failed, then passed after bisection), and after-merge fixes', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    b.move('b', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    b.add({ type: 'integration_prepared', branch: 'taskloom/run-1/integration', path: '/wt/integration' });
    const batch = b.add({ type: 'queue_batch', batch: 1, base: 'a'.repeat(40), taskIds: ['a', 'b'] });
    b.move('a', 'MERGE_STARTED');
    b.move('b', 'MERGE_STARTED');
    const gateResult = (passed: boolean, durationMs: number) =>
      b.add({
        type: 'gate_result',
        taskId: null,
        attempt: 1,
        passed,
        commands: [{ command: 'npm test', exitCode: passed ? 0 : 1, durationMs, output: 'x', timedOut: false }],
        commit: 'd'.repeat(40),
        taskIds: passed ? ['a'] : ['a', 'b'],
      });
    const failed = gateResult(false, 400);
    // Bisection: a alone passes; b goes back to its agent with the failing gate.
    const passed = gateResult(true, 300);
    b.move('a', 'MERGE_VERIFIED');
    b.move('b', 'INTEGRATION_GATE_FAILED');
    const sentBack = b.events.at(-1)!;
    b.move('b', 'RETRY_BUILD', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    const requeued = b.events.at(-1)!;
    const state = foldEvents(b.events)!;
    const tasks = state.taskOrder.map((id) => state.tasks[id]!);
    const now = Date.parse(requeued.at) + 1000;
    const layout = layoutTimeline(tasks, state.integration.batchRecords, now, { chartWidth: 1000, labelWidth: 100, axisHeight: 20, rowHeight: 30 });
    const row = layout.integration!;
    assert.equal(row.y, 20);
    const t = (e: { at: string }) => Date.parse(e.at);
    assert.deepEqual(
      row.steps.map((step) => [step.kind, step.from, step.to, step.kind === 'gate' ? step.passed : step.taskIds.join(',')]),
      [
        ['merging', t(batch), t(failed) - 400, 'a,b'],
        ['gate', t(failed) - 400, t(failed), false],
        ['merging', t(failed), t(passed) - 300, 'a,b'],
        ['gate', t(passed) - 300, t(passed), true],
      ],
    );
    assert.deepEqual(row.fixes.map((f) => [f.taskId, f.from, f.to, f.open]), [['b', t(sentBack), t(requeued), false]]);
    assert.ok(row.steps.every((step, i) => i === 0 || step.x >= row.steps[i - 1]!.x), 'one after the other, left to right');
    // The task rows start one row lower, and the picture is one row taller.
    assert.deepEqual(layout.rows.map((r) => r.y), [50, 80]);
    assert.equal(layout.height, 20 + 3 * 30);
    assert.equal(layoutTimeline(tasks, [], now).integration, undefined);
    // In b's own row, the time it was sent back is after-merge work, not a failure of its own gate.
    assert.deepEqual(layout.rows[1]!.spans.filter((s) => s.state === 'INTEGRATION_FAILED').map((s) => s.phase), ['fix']);
  });

  it('a batch whose gate has not ended merges on to now, and a fix not yet done runs on to now', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_CONFLICTED', 'RESOLVE_STARTED');
    b.add({ type: 'queue_batch', batch: 2, base: 'a'.repeat(40), taskIds: ['b'] });
    const state = foldEvents(b.events)!;
    const now = Date.parse(state.updatedAt) + 5000;
    const layout = layoutTimeline([state.tasks.a!], state.integration.batchRecords, now, { chartWidth: 1000 });
    const [merging] = layout.integration!.steps;
    assert.deepEqual([merging!.kind, merging!.to, merging!.kind === 'merging' && merging!.open], ['merging', now, true]);
    const [fix] = layout.integration!.fixes;
    assert.deepEqual([fix!.taskId, fix!.to, fix!.open], ['a', now, true]);
    assert.deepEqual(layout.rows[0]!.spans.slice(-2).map((s) => [s.state, s.phase]), [['MERGE_CONFLICT', 'fix'], ['RESOLVING', 'fix']]);
  });

  it('a step under way when no engine drives the run is drawn interrupted, not as work going on', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
    b.move('b', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
    const state = foldEvents(b.events)!;
    const tasks = state.taskOrder.map((id) => state.tasks[id]!);
    const now = Date.parse(state.updatedAt);
    const phases = (driven: boolean) => layoutTimeline(tasks, [], now, { driven }).rows.map((r) => r.spans.map((s) => s.phase));
    assert.deepEqual(phases(true), [['build', 'gate'], ['build', 'gate', 'critic']]);
    // a's gate was running: interrupted; b is approved and waiting, which no engine needs to drive.
    assert.deepEqual(phases(false), [['build', 'interrupted'], ['build', 'gate', 'critic']]);
  });

  it('the legend names every phase the chart draws, after-merge fixes and interruptions among them', () => {
    const drawn = new Set<TimelinePhase>([...Object.values(STATE_PHASE), 'interrupted']);
    assert.deepEqual(new Set(Object.keys(PHASE_LOOK)), drawn);
    const labels = Object.values(PHASE_LOOK).map((look) => look.label);
    assert.ok(labels.includes('after-merge fix') && labels.includes('interrupted') && labels.includes('merged'), labels.join(' | '));
    assert.equal(new Set(labels).size, labels.length, 'no two entries read alike');
    // Gate and gate failed differ by pattern as well as by colour (see timelineColours.test.ts).
    assert.notEqual(PHASE_LOOK.gate.hatched, PHASE_LOOK.rework.hatched);
  });

  it('zooms by widening the time area, and keeps the moment under the pointer in place', () => {
    const { tasks } = run();
    const fit = layoutTimeline(tasks, [], at(21), { chartWidth: 1000, labelWidth: 100 });
    const zoomed = layoutTimeline(tasks, [], at(21), { chartWidth: 1000, labelWidth: 100, zoom: 4 });
    assert.equal(fit.width, 1100);
    assert.equal(zoomed.width, 100 + 4000);
    assert.equal(zoomed.rows[0]!.spans[1]!.x - 100, 4 * (fit.rows[0]!.spans[1]!.x - 100));
    assert.ok(zoomed.ticks.length > fit.ticks.length, 'more ticks when zoomed in');

    assert.equal(nextZoom(1, 1), 1.5);
    assert.equal(nextZoom(1.5, -1), 1);
    assert.equal(nextZoom(1, -1), 1, 'never narrower than the fit');
    assert.equal(nextZoom(TIMELINE_ZOOMS.at(-1)!, 1), TIMELINE_ZOOMS.at(-1));
    assert.equal(nextZoom(2.5, 1), 3, 'from between two levels, the next one');
    // The pointer 300px into the view (200px into the time area, scrolled 0) points at time-x 200;
    // at twice the zoom that is time-x 400, so the view scrolls by 200 to keep it under the pointer.
    assert.equal(scrollForZoom(0, 300, 100, 1, 2), 200);
    assert.equal(scrollForZoom(200, 300, 100, 2, 1), 0);
    assert.equal(scrollForZoom(0, 50, 100, 1, 2), 0, 'never scrolled before the start');
  });
});
