import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldEvents } from '../../../src/engine/domain/projection';
import { elapsedLabel, layoutTimeline, tickStep } from '../../../src/webview/runView/timelineLayout';
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
    const { state, tasks } = run();
    const layout = layoutTimeline(tasks, Date.parse(state.createdAt), at(20), { chartWidth: 1000, labelWidth: 100 });
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
    const { state, tasks } = run();
    const layout = layoutTimeline(tasks, Date.parse(state.createdAt), at(20), { chartWidth: 1000 });
    const [a, b] = layout.rows;
    assert.deepEqual(a!.attempts.map((x) => [x.number, x.from, x.to, x.open]), [[1, at(1), at(3), false], [2, at(4), at(7), false]]);
    assert.equal(b!.attempts[0]!.open, true);
    assert.equal(b!.attempts[0]!.to, at(20));
  });

  it('maps time linearly onto the chart, right of the labels, and stacks rows below the axis', () => {
    const { state, tasks } = run();
    const layout = layoutTimeline(tasks, Date.parse(state.createdAt), at(20), { chartWidth: 1000, labelWidth: 100, axisHeight: 24, rowHeight: 30 });
    assert.equal(layout.start, at(0));
    assert.equal(layout.end, at(20));
    const first = layout.rows[0]!.spans[0]!;
    assert.equal(first.x, 100 + 1000 * (1 / 20));
    assert.equal(first.width, 1000 * (1 / 20));
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
    const layout = layoutTimeline([state.tasks.a!], Date.parse(state.createdAt), Date.parse(state.updatedAt) + 3_600_000, { chartWidth: 500, minBarWidth: 3 });
    assert.ok(layout.rows[0]!.attempts[0]!.width >= 3);
    assert.equal(layoutTimeline([], NaN, at(0)).rows.length, 0);
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
});
