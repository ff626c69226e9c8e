import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunsModel, throttledScheduler, type ModelChange } from '../../../src/extension/state/runsModel';
import { taskStateWords } from '../../../src/engine/domain/stateWords';
import { INTERRUPTED_LOOK, taskLook } from '../../../src/extension/tree/presentation';
import { EventBuilder } from '../../helpers/eventBuilder';

/** A model whose flushes happen when the test says, so coalescing is visible. */
function manualModel() {
  const flushes: Array<() => void> = [];
  const model = new RunsModel((flush) => flushes.push(flush));
  const changes: ModelChange[] = [];
  model.onDidChange((c) => changes.push(c));
  const flush = () => flushes.splice(0).forEach((f) => f());
  return { model, changes, flush, scheduled: () => flushes.length };
}

describe('RunsModel', () => {
  it('folds a new run from its first events and reports the tasks each batch touched, coalesced into one change', () => {
    const { model, changes, flush, scheduled } = manualModel();
    const b = new EventBuilder('run-1');
    b.add({ type: 'plan_approved', by: 'human' });
    assert.ok(model.applyEvents('/repo', 'run-1', b.events.slice()));
    const seen = b.events.length;
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED');
    b.move('b', 'BUILD_STARTED');
    for (const event of b.events.slice(seen)) model.applyEvents('/repo', 'run-1', [event]);
    assert.equal(scheduled(), 1, 'one flush for the whole burst');
    flush();
    assert.equal(changes.length, 1);
    const [run] = changes[0]!.runs;
    assert.deepEqual([...run!.tasks].sort(), ['a', 'b']);
    assert.equal(model.run('/repo', 'run-1')?.state?.tasks.a?.state, 'GATING');
    assert.equal(model.run('/repo', 'run-1')?.summary.active, true, 'a run the engine is driving is active');
  });

  it('refuses events that leave a gap and marks the run for a fresh fetch; ignores events it already has', () => {
    const { model } = manualModel();
    const b = new EventBuilder('run-1');
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    model.applyEvents('/repo', 'run-1', b.events.slice(0, 2));
    assert.ok(model.applyEvents('/repo', 'run-1', b.events.slice(0, 3)), 'a repeated event is skipped');
    assert.equal(model.applyEvents('/repo', 'run-1', b.events.slice(4)), false, 'seq 5 after 3 is a gap');
    assert.ok(model.isStale('/repo', 'run-1'));
    assert.equal(model.run('/repo', 'run-1')?.state?.lastSeq, 3);
  });

  it('counts green tasks and goes inactive when the run finishes', () => {
    const { model, flush } = manualModel();
    const b = new EventBuilder('run-1');
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_STARTED', 'MERGE_VERIFIED');
    b.add({ type: 'run_finished', status: 'needs_human', summary: '1/2 merged' });
    model.applyEvents('/repo', 'run-1', b.events);
    flush();
    const summary = model.run('/repo', 'run-1')!.summary;
    assert.deepEqual([summary.merged, summary.skipped, summary.total, summary.status, summary.active], [1, 0, 2, 'needs_human', false]);
    // A decision's events (ending the run) arrive before its answer: the answer does not revive it.
    model.setActive('/repo', 'run-1', true, 0);
    assert.equal(model.run('/repo', 'run-1')!.summary.active, false, 'a run finished since the request stays finished');
    // A decision on a run that finished before it (a drive winding down takes it up again) is driven.
    model.setActive('/repo', 'run-1', true, b.events.at(-1)!.seq);
    assert.equal(model.run('/repo', 'run-1')!.summary.active, true);
  });

  it('when the engine is gone, a building task shows as interrupted: no spinner, no growing clock, the same in words', () => {
    const { model, changes, flush } = manualModel();
    const b = new EventBuilder('run-1');
    b.add({ type: 'plan_approved', by: 'human' });
    b.move('a', 'BUILD_STARTED');
    model.applyEvents('/repo', 'run-1', b.events);
    flush();
    const entry = model.run('/repo', 'run-1')!;
    const task = entry.state!.tasks.a!;
    assert.equal(taskLook(task.state, { driven: entry.summary.active, status: 'running' }).icon, 'loading~spin', 'while the engine drives it, it spins');
    model.markAllStopped();
    flush();
    assert.equal(entry.summary.active, false);
    assert.ok(changes.at(-1)!.runs[0]!.structure, 'every row of the run is redrawn');
    const stopped = { driven: false, status: 'running' } as const;
    assert.deepEqual(taskLook(task.state, stopped), INTERRUPTED_LOOK);
    assert.equal(taskStateWords(task.state, stopped), 'building, interrupted');
    assert.equal(taskStateWords('NEEDS_HUMAN', stopped), 'needs you', 'a task waiting for you was not interrupted');
  });

  it('keeps a loaded state when the run list is refreshed, and drops it when the list shows the run moved on', () => {
    const { model } = manualModel();
    const b = new EventBuilder('run-1');
    model.applyEvents('/repo', 'run-1', b.events);
    const entry = model.run('/repo', 'run-1')!;
    model.setRuns('/repo', [{ ...entry.summary }]);
    assert.ok(model.run('/repo', 'run-1')?.state, 'same seq: the state is kept');
    model.setRuns('/repo', [{ ...entry.summary, lastSeq: entry.summary.lastSeq + 5 }]);
    assert.equal(model.run('/repo', 'run-1')?.state, undefined, 'the engine has more: fetch again');
    assert.ok(model.isStale('/repo', 'run-1'));
  });

  it('never lets a run list asked for before the run ended show it driven again', () => {
    const { model } = manualModel();
    const b = new EventBuilder('run-1');
    b.add({ type: 'plan_approved', by: 'human' });
    model.applyEvents('/repo', 'run-1', b.events.slice());
    const listedWhileDriven = { ...model.run('/repo', 'run-1')!.summary, active: true };
    b.add({ type: 'run_finished', status: 'completed', summary: 'done' });
    model.applyEvents('/repo', 'run-1', b.events.slice(-1));
    assert.equal(model.run('/repo', 'run-1')!.summary.active, false);
    model.setRuns('/repo', [listedWhileDriven]);
    assert.equal(model.run('/repo', 'run-1')!.summary.active, false, 'a listing older than the end');
    assert.equal(model.run('/repo', 'run-1')!.summary.status, 'completed');
    model.setRuns('/repo', [{ ...listedWhileDriven, lastSeq: model.run('/repo', 'run-1')!.state!.lastSeq, status: 'completed' }]);
    assert.equal(model.run('/repo', 'run-1')!.summary.active, false, 'a listing made after the end, before the engine let go of the run');
    assert.ok(model.run('/repo', 'run-1')!.finishedSeq !== undefined, 'the end is still known');
  });

  it('flushes an event of a quiet run on the next turn, and a burst at most once an interval', (t) => {
    // Node's mock clock: each step is an exact tick, not a sleep racing the throttle.
    t.mock.timers.enable({ apis: ['setTimeout', 'setImmediate', 'Date'] });
    const model = new RunsModel(throttledScheduler(200, Date.now));
    const flushes: number[] = [];
    model.onDidChange(() => flushes.push(Date.now()));
    const b = new EventBuilder('run-1');
    model.applyEvents('/repo', 'run-1', b.events.slice());
    t.mock.timers.tick(0);
    assert.equal(flushes.length, 1, 'no timer wait for the first change');
    const seen = b.events.length;
    b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED');
    for (const event of b.events.slice(seen)) {
      model.applyEvents('/repo', 'run-1', [event]);
      t.mock.timers.tick(10);
    }
    assert.equal(flushes.length, 1, 'changes within the interval wait for it');
    t.mock.timers.tick(160);
    assert.equal(flushes.length, 1, 'still within the interval');
    t.mock.timers.tick(10);
    assert.equal(flushes.length, 2, 'then one flush takes them all');
    assert.equal(flushes[1]! - flushes[0]!, 200);
  });
});
