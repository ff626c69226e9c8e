import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../../src/engine/domain/events';
import { foldEvents } from '../../../src/engine/domain/projection';
import { firstPage, historiesOf } from '../../../src/protocol/runViewPages';
import { RunModel, runProgress } from '../../../src/webview/runView/runModel';
import { EventBuilder } from '../../helpers/eventBuilder';

function split() {
  const b = new EventBuilder();
  b.move('a', 'BUILD_STARTED', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN');
  b.move('b', 'BUILD_STARTED', 'BUILD_FINISHED');
  const head = b.events.slice(0, 3);
  const tail = b.events.slice(3);
  return { all: b.events, head, tail, state: () => structuredClone(foldEvents(head)!) };
}

describe('run model (the webview copy of the run)', () => {
  it('folds events after the state with the engine projection, to the same result as the engine', () => {
    const { all, tail, state } = split();
    const model = new RunModel();
    model.setState(state());
    const outcome = model.applyEvents(tail);
    assert.deepEqual(outcome, { changed: true, resync: false });
    assert.deepEqual(model.state, foldEvents(all));
  });

  it('skips events the state already holds, and events of another run', () => {
    const { all, head, tail, state } = split();
    const model = new RunModel();
    model.setState(state());
    const before = model.version;
    assert.deepEqual(model.applyEvents([...head, { ...tail[0]!, runId: 'other' } as RunEvent]), { changed: false, resync: false });
    assert.equal(model.version, before);
    model.applyEvents(tail);
    model.applyEvents(tail);
    assert.deepEqual(model.state, foldEvents(all));
  });

  it('asks for the whole state when events are missing, or when one does not fold', () => {
    const { tail, state } = split();
    const gap = new RunModel();
    gap.setState(state());
    assert.equal(gap.applyEvents(tail.slice(2)).resync, true);

    const bad = new RunModel();
    bad.setState(state());
    const illegal = { ...tail[0]!, event: 'CRITIC_GREEN', to: 'GREEN' } as RunEvent;
    assert.deepEqual(bad.applyEvents([illegal]), { changed: true, resync: true });
    // Until a new state arrives, nothing more is folded into the half-updated copy.
    assert.deepEqual(bad.applyEvents(tail.slice(1)), { changed: false, resync: false });
    bad.setState(state());
    assert.equal(bad.applyEvents(tail).resync, false);
  });

  it('folds events onto a first page, and takes its histories and decisions back at the same seq to the engine’s state', () => {
    const { all, head, tail } = split();
    const page = firstPage(foldEvents(head)!);
    const model = new RunModel();
    model.setState(structuredClone(page.state), page.omitted);
    assert.equal(model.historiesMissing, true);
    model.applyEvents(tail);
    const engine = foldEvents(all)!;
    assert.equal(model.setHistories(engine.lastSeq - 1, structuredClone(historiesOf(engine))), false, 'an answer of another seq does not fit');
    assert.equal(model.setHistories(engine.lastSeq, structuredClone(historiesOf(engine))), true);
    assert.equal(model.setDecisions(engine.lastSeq, structuredClone(engine.decisions)), true);
    assert.equal(model.historiesMissing, false);
    assert.equal(model.decisionsOmitted, 0);
    // What the first page left out of the gate and critic (the last full answers) the view never shows.
    const { lastGate: _g, lastVerdict: _v, ...a } = engine.tasks.a!;
    assert.deepEqual(model.state!.tasks.a, a);
    assert.deepEqual(model.state!.decisions, engine.decisions);
  });

  it('ignores events before the first state', () => {
    const { tail } = split();
    assert.deepEqual(new RunModel().applyEvents(tail), { changed: false, resync: false });
  });

  it('counts tasks by state for the progress bar', () => {
    const { all } = split();
    const progress = runProgress(foldEvents(all)!);
    assert.equal(progress.total, 2);
    assert.equal(progress.merged, 0, 'approved work in the merge queue is not merged');
    assert.equal(progress.byState.GREEN, 1);
    assert.equal(progress.byState.GATING, 1);
    assert.equal(progress.byState.PENDING, 0);
  });
});
