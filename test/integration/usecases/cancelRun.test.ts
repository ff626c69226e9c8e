import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cancelRun } from '../../../src/engine/usecases/cancelRun';
import { NotCancellableError } from '../../../src/engine/usecases/useCaseErrors';
import { green, task, write } from '../../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door } = doorsOfThisFile();

const plan = { goal: 'cancel', tasks: [task('a')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] } } };

describe('cancelRun', () => {
  it('ends a run whose plan waits for approval as cancelled, nothing built', async () => {
    const d = await door();
    const session = scriptedRun(d, plan, scenario, { approve: false });
    await cancelRun(d, { runId: session.runId });
    assert.equal(session.state.status, 'cancelled');
    assert.equal(session.state.finishedSummary, 'cancelled before its plan was approved; nothing was built');
  });

  it('stops what its door plans or drives in the background, and touches nothing else', async () => {
    const stopped: string[] = [];
    const d = await door({
      backgroundWork: () => 'driving',
      stopBackgroundWork: async (runId) => {
        stopped.push(runId);
      },
    });
    const session = scriptedRun(d, plan, scenario);
    const seq = session.state.lastSeq;
    await cancelRun(d, { runId: session.runId });
    assert.deepEqual(stopped, [session.runId]);
    assert.equal(session.state.lastSeq, seq, 'the background work records its own end');
  });

  it('refuses a run nobody plans or drives, saying how it stands', async () => {
    const d = await door();
    const session = scriptedRun(d, plan, scenario);
    assert.equal(await driveToEnd(d, session), 'completed');
    await assert.rejects(cancelRun(d, { runId: session.runId }), (error: unknown) => {
      assert.ok(error instanceof NotCancellableError, String(error));
      assert.equal(error.code, 'not_cancellable');
      assert.equal(error.message, `Run ${session.runId} is not being planned or driven (it is completed)`);
      return true;
    });
  });
});
