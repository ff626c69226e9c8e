import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { undecidedBaselineFailures } from '../../../src/engine/domain/gateProjection';
import type { RunSession } from '../../../src/engine/session/runSession';
import { cancelRun } from '../../../src/engine/usecases/cancelRun';
import { resumeRun } from '../../../src/engine/usecases/resumeRun';
import { BaselineChoiceNeededError, NoBaselineChoiceError } from '../../../src/engine/usecases/useCaseErrors';
import { pausedOnBase } from '../../helpers/gateEvents';
import { green, task, write } from '../../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door } = doorsOfThisFile();

const plan: Plan = { goal: 'two modules', tasks: [task('a'), task('b')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] } } };

/** A run whose drive gated its base and paused there: `npm run lint` fails with no runner to say which tests (`npm test` names its one broken test). */
async function pausedForChoice(): Promise<{ d: Awaited<ReturnType<typeof door>>; session: RunSession }> {
  const d = await door();
  const session = scriptedRun(d, plan, scenario);
  for (const body of pausedOnBase(session.state.baseCommit)) session.emit(body);
  return { d, session };
}

const eventTypes = (session: RunSession, after: number) => session.state.decisions.filter((x) => x.seq > after).map((x) => x.fact.type);

describe('the user’s choice when the run’s base already fails a gate command', () => {
  it('a plain resume is refused, changing nothing, with both ways on: advisory (the commands no runner explained, only those) or cancel', async () => {
    const { d, session } = await pausedForChoice();
    assert.equal(session.state.status, 'paused');
    const seq = session.state.lastSeq;
    assert.throws(
      () => resumeRun(d, { runId: session.runId }),
      (error: unknown) => {
        assert.ok(error instanceof BaselineChoiceNeededError, String(error));
        assert.equal(error.code, 'baseline_choice_needed');
        assert.equal(error.message, `Run ${session.runId} waits for your choice`);
        assert.match(error.hint ?? '', /^`npm run lint` fails on the run's base before any task changed anything, and no test runner says which tests: treat it as advisory for this run/);
        assert.deepEqual(error.next, [
          { kind: 'treatAsAdvisory', runId: session.runId, commands: ['npm run lint'] },
          { kind: 'cancelRun', runId: session.runId },
        ]);
        return true;
      },
    );
    assert.equal(session.state.lastSeq, seq, 'nothing was recorded');
  });

  it('advisory records the choice for exactly the undecided commands, resumes, and the door drives the run on to its end', async () => {
    const { d, session } = await pausedForChoice();
    const seq = session.state.lastSeq;
    const ready = resumeRun(d, { runId: session.runId, advisory: true });
    assert.deepEqual(eventTypes(session, seq), ['baseline_choice', 'run_resumed']);
    const choice = session.state.decisions.find((x) => x.fact.type === 'baseline_choice')!.fact;
    assert.deepEqual(choice, { type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory' }, '`npm test` named its failing test: no choice about it');
    assert.deepEqual(session.state.baseline?.advisory, ['npm run lint']);
    assert.deepEqual(undecidedBaselineFailures(session.state), [], 'nothing waits any more');
    assert.equal(await driveToEnd(d, ready.session), 'completed');

    // Asked again, where nothing waits for the choice: refused, so the ledger records no choice that was never needed.
    assert.throws(() => resumeRun(d, { runId: session.runId, advisory: true }), /already completed/);
    const other = scriptedRun(d, plan, scenario);
    assert.throws(
      () => resumeRun(d, { runId: other.runId, advisory: true }),
      (error: unknown) => error instanceof NoBaselineChoiceError && error.code === 'no_baseline_choice' && error.message === `Nothing waits for a baseline choice in run ${other.runId}`,
    );
    assert.equal(other.state.decisions.some((x) => x.fact.type === 'baseline_choice'), false);
  });

  it('cancel ends the paused run, its unstarted tasks cancelled; resumed later, it still asks for the choice, no longer offering to cancel', async () => {
    const { d, session } = await pausedForChoice();
    await cancelRun(d, { runId: session.runId });
    assert.equal(session.state.status, 'cancelled');
    assert.equal(session.state.finishedSummary, 'cancelled by the user: `npm run lint` fails on the base (2 tasks not finished)');
    assert.deepEqual(session.state.taskOrder.map((id) => session.task(id).state), ['CANCELLED', 'CANCELLED']);
    assert.throws(
      () => resumeRun(d, { runId: session.runId }),
      (error: unknown) => error instanceof BaselineChoiceNeededError && error.next.map((s) => s.kind).join() === 'treatAsAdvisory',
    );
    const ready = resumeRun(d, { runId: session.runId, advisory: true });
    assert.equal(await driveToEnd(d, ready.session), 'completed');
    assert.deepEqual(session.state.taskOrder.map((id) => session.task(id).state), ['MERGED', 'MERGED']);
  });
});
