import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentRole } from '../../../src/engine/domain/events';
import { foldEvents } from '../../../src/engine/domain/projection';
import { ZERO_USAGE } from '../../../src/engine/domain/usage';
import { NO_TASK_LABEL, topBars, usageTables, type UsageRow } from '../../../src/webview/runView/usageModel';
import { EventBuilder } from '../../helpers/eventBuilder';

function call(b: EventBuilder, taskId: string | null, role: AgentRole, inputTokens: number, costUsd: number, agent = 'scripted') {
  b.add({
    type: 'runner_call',
    taskId,
    role,
    agent,
    model: 'm',
    status: 'ok',
    usage: { inputTokens, outputTokens: 10, cacheReadTokens: 100, cacheWriteTokens: 1, costUsd },
    durationMs: 5,
    quotaHit: false,
  });
}

describe('usage tables', () => {
  it('sums per role (planner, actor, critic), per task in plan order, and puts untasked calls in their own row', () => {
    const b = new EventBuilder();
    call(b, null, 'planner', 1000, 0.5);
    call(b, 'b', 'actor', 300, 0.03);
    call(b, 'a', 'actor', 200, 0.02);
    call(b, 'a', 'critic', 100, 0.01);
    const tables = usageTables(foldEvents(b.events)!);
    assert.deepEqual(tables.byRole.map((r) => [r.label, r.usage.inputTokens]), [['planner', 1000], ['actor', 500], ['critic', 100]]);
    assert.deepEqual(tables.byTask.map((r) => [r.label, r.usage.inputTokens, r.usage.costUsd]), [['a', 300, 0.03], ['b', 300, 0.03], [NO_TASK_LABEL, 1000, 0.5]]);
    assert.equal(tables.byTask[0]!.taskId, 'a');
    assert.equal(tables.byTask[2]!.taskId, undefined);
    assert.equal(tables.total.inputTokens, 1600);
    assert.equal(tables.total.costUsd, 0.56);
    assert.equal(tables.calls, 4);
  });

  it('sums per agent when the roles have different agents', () => {
    const b = new EventBuilder();
    call(b, 'a', 'actor', 200, 0.02, 'claude');
    call(b, 'a', 'critic', 100, 0.01, 'codex');
    call(b, 'b', 'critic', 50, 0.005, 'codex');
    const tables = usageTables(foldEvents(b.events)!);
    assert.deepEqual(tables.byAgent.map((r) => [r.label, r.usage.inputTokens, r.usage.costUsd]), [['claude', 200, 0.02], ['codex', 150, 0.015]]);
  });

  it('lists tasks that spent nothing yet, and no untasked row when every call had a task', () => {
    const b = new EventBuilder();
    call(b, 'a', 'actor', 10, 0.001);
    const tables = usageTables(foldEvents(b.events)!);
    assert.deepEqual(tables.byTask.map((r) => r.label), ['a', 'b']);
    assert.deepEqual(tables.byTask[1]!.usage, ZERO_USAGE);
  });

  it('charts the largest spenders by dollars and sums the rest into one bar', () => {
    const rows: UsageRow[] = Array.from({ length: 25 }, (_, i) => ({ key: `task:t${i}`, label: `t${i}`, taskId: `t${i}`, usage: { ...ZERO_USAGE, inputTokens: 1, costUsd: (i + 1) / 100 } }));
    const { bars, unit } = topBars(rows, 20);
    assert.equal(unit, 'usd');
    assert.equal(bars.length, 21);
    assert.equal(bars[0]!.label, 't24');
    assert.equal(bars[0]!.taskId, 't24');
    assert.equal(bars[20]!.label, '5 others');
    assert.equal(bars[20]!.value, 0.15);
  });

  it('charts tokens when no call reported a price, and leaves out rows with nothing spent', () => {
    const rows: UsageRow[] = [
      { key: 'a', label: 'a', usage: { ...ZERO_USAGE, inputTokens: 5, outputTokens: 5 } },
      { key: 'b', label: 'b', usage: ZERO_USAGE },
    ];
    assert.deepEqual(topBars(rows, 20), { unit: 'tokens', bars: [{ key: 'a', label: 'a', value: 10 }] });
  });
});
