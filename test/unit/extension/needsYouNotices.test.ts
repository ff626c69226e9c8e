import { commands, window, type ShownNotification } from '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it, type TestContext } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { GROUP_MS, NeedsYouNotices } from '../../../src/extension/needsYouNotices';
import type { RunsController } from '../../../src/extension/runsController';
import { RunsModel } from '../../../src/extension/state/runsModel';
import { EventBuilder } from '../../helpers/eventBuilder';

const FOLDER = '/repo';
const plan: Plan = {
  goal: 'grow textkit',
  tasks: ['slugify', 'word-count', 'title-case', 'summary'].map((id) => ({ id, title: id, description: id, acceptance: [], dependsOn: id === 'summary' ? ['word-count'] : [] })),
};

/** Notices over a model whose events the test folds, the window's clock stepped by the test. */
function noticesOf(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  const model = new RunsModel((flush) => setImmediate(flush));
  const controller = { model, state: async (folder: string, runId: string) => model.run(folder, runId)?.state } as unknown as RunsController;
  const notices = new NeedsYouNotices(controller);
  const b = new EventBuilder('r', plan);
  /** Folds the builder's new events as the engine's notifications bring them, and lets the grouping time pass. */
  const fold = async (): Promise<ShownNotification[]> => {
    const before = window.shown.length;
    model.applyEvents(FOLDER, 'r', b.events.slice());
    t.mock.timers.tick(0);
    t.mock.timers.tick(GROUP_MS);
    // The notification's answer and what follows it are promise turns, not timers.
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    return window.shown.slice(before);
  };
  t.after(() => notices.dispose());
  /** The events so far reach the window's model now (what the engine's notifications would bring). */
  const deliver = () => model.applyEvents(FOLDER, 'r', b.events.slice());
  return { b, fold, deliver };
}

beforeEach(() => {
  window.shown.length = 0;
  window.answer = () => undefined;
  commands.executed.length = 0;
});

describe('a notification when a task comes to need you', () => {
  it('tasks that come together are one notification with their true count; a task skipped for its dependency needs nothing', async (t) => {
    const { b, fold } = noticesOf(t);
    b.add({ type: 'plan_approved', by: 'human' });
    assert.deepEqual(await fold(), [], 'the run as first seen here: nothing is news');
    b.move('word-count', 'BUILD_STARTED', 'AGENT_FAILED').move('title-case', 'BUILD_STARTED', 'AGENT_FAILED').move('summary', 'DEPENDENCY_FAILED');
    const [shown, ...more] = await fold();
    assert.deepEqual(more, []);
    assert.equal(shown?.text, 'Taskloom: 2 tasks of run "grow textkit" need you: word-count, title-case.');
    assert.deepEqual(shown?.items, ['Show Needs You', 'Show Run']);
  });

  it('one task: what it needs, with Open, Retry and Skip; Retry pressed after it was skipped says so and retries nothing', async (t) => {
    const { b, fold, deliver } = noticesOf(t);
    b.add({ type: 'plan_approved', by: 'human' });
    await fold();
    b.move('word-count', 'BUILD_STARTED', 'AGENT_FAILED');
    // The person decides elsewhere before pressing the notification's button.
    window.answer = (shown) => {
      if (!shown.items.includes('Retry')) return undefined;
      b.move('word-count', 'HUMAN_SKIPPED');
      deliver();
      return 'Retry';
    };
    const [shown, said] = await fold();
    assert.equal(shown?.text, 'Taskloom: "word-count" needs you: agent_failed for test');
    assert.deepEqual(shown?.items, ['Open', 'Retry', 'Skip']);
    assert.deepEqual(said, { severity: 'information', text: 'Taskloom: "word-count" no longer needs you: it is skipped now.', items: [] });
    assert.deepEqual(commands.executed, [], 'the stale Retry ran nothing');
  });
});
