import { window, type ShownNotification } from '../../helpers/vscodeStub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it, type TestContext } from 'node:test';
import type { RunEventBody } from '../../../src/engine/domain/events';
import { PullRequestNotices } from '../../../src/extension/pullRequestNotices';
import type { RunsController } from '../../../src/extension/runsController';
import { RunsModel } from '../../../src/extension/state/runsModel';
import { EventBuilder } from '../../helpers/eventBuilder';

const FOLDER = '/repo';

/** Notices over a model whose events the test folds as the engine's notifications bring them. */
function noticesOf(t: TestContext) {
  t.mock.timers.enable({ apis: ['setImmediate'] });
  const model = new RunsModel((flush) => setImmediate(flush));
  const notices = new PullRequestNotices({ model } as unknown as RunsController);
  const b = new EventBuilder('r');
  const fold = async (): Promise<ShownNotification[]> => {
    const before = window.shown.length;
    model.applyEvents(FOLDER, 'r', b.events.slice());
    t.mock.timers.tick(0);
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    return window.shown.slice(before);
  };
  t.after(() => notices.dispose());
  return { b, fold };
}

const opened = (taskId: string, number: number): RunEventBody => ({ type: 'pull_request', taskId, number, url: `https://github.example/o/r/pull/${number}`, head: `taskloom/r/stack/${taskId}`, base: 'main', action: 'opened', repo: 'o/r', remote: 'origin' });
const redAt = (number: number, headSha: string): RunEventBody => ({ type: 'pr_observed', number, headSha, state: 'open', mergeable: true, checks: [{ name: 'lint', status: 'failure' }], review: 'none' });

beforeEach(() => {
  window.shown.length = 0;
  window.answer = () => undefined;
});

describe('a notification when a watched pull request is escalated, or one of a stack comes to need you', () => {
  it('tells an escalation once, and a stacked pull request that needs you while the other is watched; what was so when first seen is not news', async (t) => {
    const { b, fold } = noticesOf(t);
    for (const body of [opened('a', 1), opened('b', 2), redAt(1, 'h1')]) b.add(body);
    assert.deepEqual(await fold(), [], 'the run as first seen here: nothing is news');
    const since = b.events.at(-1)!.at;
    b.add({ type: 'pull_request_escalated', number: 1, url: 'https://github.example/o/r/pull/1', headSha: 'h1', red: 'checks', failing: ['lint'], since, afterMinutes: 60 });
    const [escalated, ...more] = await fold();
    assert.deepEqual(more, []);
    assert.match(escalated!.text, /^Taskloom: pull request #1 has been red since .+ with no progress \(failing: lint\)\.$/);
    assert.deepEqual(escalated!.items, ['Open in Browser']);
    b.add(redAt(1, 'h1'));
    assert.deepEqual(await fold(), [], 'told once per red stretch');
    b.add({ type: 'pr_watch_ended', number: 2, outcome: 'needs_human', reason: 'the check "deploy" failed without output' });
    const [needs] = await fold();
    assert.equal(needs?.text, 'Taskloom: pull request #2 needs you: the check "deploy" failed without output; the other pull requests are still watched.');
  });
});
