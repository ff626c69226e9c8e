import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentRole, RunEvent, RunnerStatus } from '../../src/engine/domain/events';
import { foldEvents } from '../../src/engine/domain/projection';
import { taskTimings } from '../../src/engine/domain/taskTimings';
import { stepWords, timingWords } from '../../src/engine/report/timingWords';
import { buildTraceReport } from '../../src/engine/report/traceReport';
import { formatRunSummary } from '../../src/cli/summary';
import { taskDescription } from '../../src/extension/tree/presentation';
import { LOG_FIXTURES_DIR } from '../fixtures/logs/fixtureCases';
import { EventBuilder } from '../helpers/eventBuilder';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

function call(b: EventBuilder, taskId: string, role: AgentRole, durationMs: number, status: RunnerStatus = 'ok'): void {
  b.add({ type: 'runner_call', taskId, role, agent: 'scripted', model: 'scripted', status, usage: NO_USAGE, durationMs, quotaHit: false });
}

function gate(b: EventBuilder, taskId: string, attempt: number, passed: boolean, ...durations: number[]): void {
  const commands = durations.map((durationMs, i) => ({ command: `step ${i}`, exitCode: passed ? 0 : 1, timedOut: false, durationMs, output: '' }));
  b.add({ type: 'gate_result', taskId, attempt, passed, commands });
}

/**
 * Task a, as a real run records it: built (800 ms), its gate fails (600 ms), the retry's actor fails
 * (500 ms) and the run ends needing a person. Two hours later they retry it: built (700 ms), gated
 * (250 + 150 ms), reviewed (300 ms), queued, merged. Every event is one second after the one before.
 */
function retriedAfterLongWait(): EventBuilder {
  const b = new EventBuilder();
  b.add({ type: 'plan_approved', by: 'human' });
  b.move('a', 'BUILD_STARTED');
  call(b, 'a', 'actor', 800);
  b.move('a', 'BUILD_FINISHED');
  gate(b, 'a', 1, false, 600);
  b.move('a', 'MECHANICAL_FAILED', 'RETRY_BUILD');
  call(b, 'a', 'actor', 500, 'agent_error');
  b.move('a', 'AGENT_FAILED');
  b.add({ type: 'run_finished', status: 'needs_human', summary: 'a needs you' });
  b.wait(2 * HOUR);
  b.add({ type: 'human_decision', taskId: 'a', action: 'retry', note: 'try again' });
  b.move('a', 'HUMAN_RETRY');
  b.add({ type: 'run_resumed', reason: 'human chose to retry "a"' });
  b.move('a', 'BUILD_STARTED');
  call(b, 'a', 'actor', 700);
  b.move('a', 'BUILD_FINISHED');
  gate(b, 'a', 2, true, 250, 150);
  b.move('a', 'MECHANICAL_PASSED');
  call(b, 'a', 'critic', 300);
  b.move('a', 'CRITIC_GREEN');
  b.add({ type: 'merge_queued', taskId: 'a', commit: 'c'.repeat(40) });
  b.move('a', 'MERGE_STARTED');
  b.add({ type: 'merge_done', taskId: 'a', commit: 'd'.repeat(40), alreadyMerged: false });
  b.move('a', 'MERGE_VERIFIED');
  return b;
}

describe('task timings', () => {
  it('keeps the hours a task waited for a person out of its time, and says how long it waited', () => {
    const state = foldEvents(retriedAfterLongWait().events)!;
    const t = taskTimings(state, state.tasks.a!);

    assert.ok(t.waitingForHumanMs >= 2 * HOUR, `waited ${t.waitingForHumanMs} ms`);
    assert.equal(t.waitingForHumanSince, undefined, 'merged: it waits for nobody now');
    // Built, gated, reviewed: seven one-second steps before the wait, three after it.
    assert.equal(t.totalMs, 13 * SECOND);
    assert.ok(t.totalMs < t.waitingForHumanMs);
    // From GREEN until merged.
    assert.equal(t.mergeQueueMs, 4 * SECOND);
    // The phases are what the calls and the gate runs took, over both tries.
    assert.equal(t.buildingMs, 800 + 500 + 700);
    assert.equal(t.gatingMs, 600 + 250 + 150);
    assert.equal(t.reviewingMs, 300);

    assert.deepEqual(
      t.calls.map((c) => [c.role, c.step, c.status, c.durationMs]),
      [
        ['actor', 'build', 'ok', 800],
        ['actor', 'build', 'agent_error', 500],
        ['actor', 'build', 'ok', 700],
        ['critic', 'review', 'ok', 300],
      ],
    );
    assert.deepEqual(t.gateRuns.map((g) => [g.attempt, g.passed, g.durationMs]), [[1, false, 600], [2, true, 400]]);
  });

  it('gives trace and the run summary the same task time', () => {
    const state = foldEvents(retriedAfterLongWait().events)!;
    const task = buildTraceReport(state).tasks.find((x) => x.id === 'a')!;
    assert.equal(task.durationMs, task.timings.totalMs);
    assert.deepEqual(task.timings, taskTimings(state, state.tasks.a!));
    const wall = Date.parse(state.tasks.a!.finishedAt!) - Date.parse(state.tasks.a!.startedAt!);
    assert.ok(task.durationMs! < wall - 2 * HOUR, 'the wall-clock span holds the wait; the task time does not');
    // A task that never started has no time, and nothing in its timings.
    const b = buildTraceReport(state).tasks.find((x) => x.id === 'b')!;
    assert.equal(b.durationMs, undefined);
    assert.equal(b.timings.totalMs + b.timings.waitingForHumanMs + b.timings.calls.length, 0);
  });

  it('shows the same task time in the run summary and on the Runs tree row', () => {
    const state = foldEvents(retriedAfterLongWait().events)!;
    const timings = taskTimings(state, state.tasks.a!);
    assert.match(taskDescription(state.tasks.a!, timings, { driven: false, status: state.status }), / · 13s$/);
    const row = formatRunSummary(state).split('\n').find((line) => line.startsWith('a '))!;
    assert.match(row, / 13\.0 s$/);
  });

  it('words the timings and every step in the order they happened', () => {
    const state = foldEvents(retriedAfterLongWait().events)!;
    const t = taskTimings(state, state.tasks.a!);
    const ms = (n: number) => `${n}ms`;
    assert.equal(timingWords(t, ms), `time 13000ms (building 2000ms, gating 1000ms, reviewing 300ms); merge queue 4000ms; waited for you ${t.waitingForHumanMs}ms`);
    assert.equal(stepWords(t, ms), 'build 800ms, gate 600ms failed, build 500ms agent error, build 700ms, gate 400ms, review 300ms');
  });

  it('counts a run stopped mid-task (killed, paused) as waiting for someone to resume it, not as work', () => {
    const b = new EventBuilder();
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED');
    // The process dies here; an hour later someone resumes the run.
    b.wait(HOUR);
    b.add({ type: 'run_resumed', reason: 'taskloom resume (was running)' });
    b.move('a', 'INTERRUPTED', 'BUILD_STARTED');
    call(b, 'a', 'actor', 400);
    b.move('a', 'BUILD_FINISHED');
    const state = foldEvents(b.events)!;
    assert.deepEqual(state.stops, [{ from: b.events[2]!.at, to: b.events[3]!.at }]);
    const t = taskTimings(state, state.tasks.a!);
    assert.ok(t.waitingForHumanMs >= HOUR);
    assert.ok(t.totalMs < 10 * SECOND, `total ${t.totalMs} ms`);
    assert.equal(t.buildingMs, 400, 'the call the dead process was making left no record');
  });

  it('counts a conflict resolution as building, and the queue until the task is sent back', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED');
    call(b, 'a', 'actor', 100);
    b.move('a', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    call(b, 'a', 'critic', 50);
    b.move('a', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_CONFLICTED', 'RESOLVE_STARTED');
    call(b, 'a', 'actor', 200);
    b.move('a', 'BUILD_FINISHED');
    const state = foldEvents(b.events)!;
    const t = taskTimings(state, state.tasks.a!);
    assert.deepEqual(t.calls.map((c) => c.step), ['build', 'review', 'resolve']);
    assert.equal(t.buildingMs, 300);
    // GREEN and MERGING, until MERGE_CONFLICTED sent it back.
    assert.equal(t.mergeQueueMs, 2 * SECOND);
  });

  it('lets a live view see open steps grow, and a stopped run wait for you', () => {
    const b = new EventBuilder();
    b.move('a', 'BUILD_STARTED');
    b.move('b', 'BUILD_STARTED', 'AGENT_FAILED');
    const state = foldEvents(b.events)!;
    const last = Date.parse(state.updatedAt);
    const later = { now: last + HOUR, live: true };

    // As of the last event: a is building, b has just started waiting for you.
    assert.equal(taskTimings(state, state.tasks.a!).totalMs, 2 * SECOND);
    assert.equal(taskTimings(state, state.tasks.b!).waitingForHumanSince, state.tasks.b!.transitions.at(-1)!.at);

    // An hour later, with an engine driving the run: a built all along; b still waits.
    assert.equal(taskTimings(state, state.tasks.a!, later).totalMs, HOUR + 2 * SECOND);
    assert.equal(taskTimings(state, state.tasks.b!, later).waitingForHumanMs, HOUR);

    // An hour later with no engine: a's hour is a wait for someone to resume the run.
    const stopped = taskTimings(state, state.tasks.a!, { ...later, live: false });
    assert.equal(stopped.totalMs, 2 * SECOND);
    assert.equal(stopped.waitingForHumanMs, HOUR);
    assert.equal(stopped.waitingForHumanSince, state.updatedAt);
  });

  it('reads logs from before calls and gate runs were kept per task (release 0.1)', () => {
    const lines = readFileSync(join(LOG_FIXTURES_DIR, 'v0.1-a732323', 'needs-human', 'events.jsonl'), 'utf8').trim().split('\n');
    const state = foldEvents(lines.map((l) => JSON.parse(l) as RunEvent))!;
    const report = buildTraceReport(state);
    const hard = report.tasks.find((t) => t.state === 'NEEDS_HUMAN')!;
    assert.ok(hard.timings.buildingMs > 0);
    assert.ok(hard.timings.waitingForHumanSince);
    const merged = report.tasks.find((t) => t.state === 'MERGED')!;
    assert.ok(merged.timings.calls.some((c) => c.step === 'review'));
    assert.ok(merged.timings.gateRuns.length > 0);
    assert.equal(merged.durationMs, merged.timings.totalMs);
  });
});
