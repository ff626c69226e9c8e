import { commands, window, type ShownNotification } from '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it, type TestContext } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { BaselineChoiceNotices } from '../../../src/extension/baselineChoiceNotices';
import type { RunsController } from '../../../src/extension/runsController';
import { RunsModel } from '../../../src/extension/state/runsModel';
import { EventBuilder } from '../../helpers/eventBuilder';
import { command, pausedOnBase } from '../../helpers/gateEvents';

const FOLDER = '/repo';
const plan: Plan = { goal: 'grow textkit', tasks: [{ id: 'slugify', title: 'slugify', description: 'slugify', acceptance: [], dependsOn: [] }] };

/** Notices over a model whose events the test folds as the engine's notifications bring them. */
function noticesOf(t: TestContext) {
  t.mock.timers.enable({ apis: ['setImmediate'] });
  const model = new RunsModel((flush) => setImmediate(flush));
  const controller = { model, state: async (folder: string, runId: string) => model.run(folder, runId)?.state } as unknown as RunsController;
  const notices = new BaselineChoiceNotices(controller);
  t.after(() => notices.dispose());
  const b = new EventBuilder('r', plan);
  const deliver = () => {
    model.applyEvents(FOLDER, 'r', b.events.slice());
    t.mock.timers.tick(0);
  };
  const fold = async (): Promise<ShownNotification[]> => {
    const before = window.shown.length;
    deliver();
    // The answer and what follows it are promise turns, not timers.
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    return window.shown.slice(before);
  };
  return { b, fold, deliver };
}

beforeEach(() => {
  window.shown.length = 0;
  window.answer = () => undefined;
  commands.executed.length = 0;
});

describe('a notification when a run pauses for the user’s choice about its base', () => {
  it('says what fails on the base and offers the three answers; Treat as Advisory and Keep as Required each run the command that resumes it so', async (t) => {
    const { b, fold } = noticesOf(t);
    b.add({ type: 'plan_approved', by: 'human' });
    assert.deepEqual(await fold(), [], 'the run as first seen here: nothing is news');
    for (const body of pausedOnBase('a'.repeat(40))) b.add(body);
    window.answer = () => 'Treat as Advisory';
    const [shown, ...more] = await fold();
    assert.deepEqual(more, []);
    assert.equal(
      shown?.text,
      'Taskloom: run "grow textkit" paused: `npm run lint` fails on main before any task changed anything, and no test runner says which tests: ' +
        'treat it as advisory for this run (its failures are shown and fail no gate), keep it as required (a check of work still to be done: the tasks must make it pass), or cancel the run.',
    );
    assert.deepEqual(shown?.items, ['Treat as Advisory', 'Keep as Required', 'Cancel Run']);
    assert.deepEqual(commands.executed, [['taskloom.treatAsAdvisory', { folder: FOLDER, runId: 'r' }]]);
  });

  it('Keep as Required runs the command that keeps the commands as checks and resumes; pressed after the run went on, it says so and runs nothing', async (t) => {
    const { b, fold, deliver } = noticesOf(t);
    b.add({ type: 'plan_approved', by: 'human' });
    await fold();
    for (const body of pausedOnBase('a'.repeat(40))) b.add(body);
    window.answer = () => 'Keep as Required';
    await fold();
    assert.deepEqual(commands.executed, [['taskloom.keepAsRequired', { folder: FOLDER, runId: 'r' }]]);

    // Paused again on another base failure; treated as advisory elsewhere before this notification's Keep as Required is pressed.
    commands.executed.length = 0;
    b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'required' });
    b.add({ type: 'run_resumed', reason: 'resumed (was paused)' });
    await fold();
    for (const body of pausedOnBase('b'.repeat(40), [command('npm run typecheck', 2)])) b.add(body);
    window.answer = (notice) => {
      if (!notice.items.includes('Keep as Required')) return undefined;
      b.add({ type: 'baseline_choice', commands: ['npm run typecheck'], choice: 'advisory' });
      b.add({ type: 'run_resumed', reason: 'resumed (was paused)' });
      deliver();
      return 'Keep as Required';
    };
    const [asked, said] = await fold();
    assert.match(asked?.text ?? '', /`npm run typecheck` fails on main/);
    assert.deepEqual(said, { severity: 'information', text: 'Taskloom: run "grow textkit" no longer waits for a choice about its base: it is running now.', items: [] });
    assert.deepEqual(commands.executed, [], 'the stale Keep as Required ran nothing');
  });

  it('a button pressed after the choice was made elsewhere says so, and cancels nothing', async (t) => {
    const { b, fold, deliver } = noticesOf(t);
    b.add({ type: 'plan_approved', by: 'human' });
    await fold();
    for (const body of pausedOnBase('a'.repeat(40))) b.add(body);
    // Treated as advisory in the run view, and resumed, before the notification's Cancel Run is pressed.
    window.answer = (notice) => {
      if (!notice.items.includes('Cancel Run')) return undefined;
      b.add({ type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory' });
      b.add({ type: 'run_resumed', reason: 'resumed (was paused)' });
      deliver();
      return 'Cancel Run';
    };
    const [, said] = await fold();
    assert.deepEqual(said, { severity: 'information', text: 'Taskloom: run "grow textkit" no longer waits for a choice about its base: it is running now.', items: [] });
    assert.deepEqual(commands.executed, [], 'the stale Cancel Run ran nothing');
  });
});
