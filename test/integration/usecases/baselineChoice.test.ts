import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { EXIT } from '../../../src/engine/domain/taskloomError';
import { undecidedBaselineFailures } from '../../../src/engine/domain/gateProjection';
import type { RunSession } from '../../../src/engine/session/runSession';
import { cancelRun } from '../../../src/engine/usecases/cancelRun';
import { resumeRun } from '../../../src/engine/usecases/resumeRun';
import { BaselineChoiceNeededError, NoBaselineChoiceError } from '../../../src/engine/usecases/useCaseErrors';
import { pausedOnBase } from '../../helpers/gateEvents';
import { green, runEvents, runScripted, task, trace, write } from '../../helpers/scriptedRun';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door, repo } = doorsOfThisFile();

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

/** What a task's last gate says of each command: whether it passed, its exit code, and whether it was excused as advisory. */
function lastGate(session: RunSession, taskId: string) {
  const gate = session.task(taskId).lastGate;
  assert.ok(gate, `${taskId} was gated`);
  return { passed: gate.passed, commands: gate.commands.map((c) => ({ command: c.command, exitCode: c.exitCode, advisory: c.advisory })) };
}

describe('the user’s choice when the run’s base already fails a gate command', () => {
  it('a plain resume is refused, changing nothing, with the three ways on: advisory or required (the commands no runner explained, only those), or cancel', async () => {
    const { d, session } = await pausedForChoice();
    assert.equal(session.state.status, 'paused');
    const seq = session.state.lastSeq;
    assert.throws(
      () => resumeRun(d, { runId: session.runId }),
      (error: unknown) => {
        assert.ok(error instanceof BaselineChoiceNeededError, String(error));
        assert.equal(error.code, 'baseline_choice_needed');
        assert.equal(error.message, `Run ${session.runId} waits for your choice`);
        assert.equal(
          error.hint,
          "`npm run lint` fails on the run's base before any task changed anything, and no test runner says which tests: treat it as advisory for this run " +
            '(its failures are shown and fail no gate), keep it as required (a check of work still to be done: the tasks must make it pass), or cancel the run.',
        );
        assert.deepEqual(error.next, [
          { kind: 'treatAsAdvisory', runId: session.runId, commands: ['npm run lint'] },
          { kind: 'keepAsRequired', runId: session.runId, commands: ['npm run lint'] },
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
    const ready = resumeRun(d, { runId: session.runId, baselineChoice: 'advisory' });
    assert.deepEqual(eventTypes(session, seq), ['baseline_choice', 'run_resumed']);
    const choice = session.state.decisions.find((x) => x.fact.type === 'baseline_choice')!.fact;
    assert.deepEqual(choice, { type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory' }, '`npm test` named its failing test: no choice about it');
    assert.deepEqual(session.state.baseline?.advisory, ['npm run lint']);
    assert.deepEqual(undecidedBaselineFailures(session.state), [], 'nothing waits any more');
    assert.equal(await driveToEnd(d, ready.session), 'completed');

    // Asked again, where nothing waits for the choice: refused, so the ledger records no choice that was never needed.
    assert.throws(() => resumeRun(d, { runId: session.runId, baselineChoice: 'advisory' }), /already completed/);
    const other = scriptedRun(d, plan, scenario);
    assert.throws(
      () => resumeRun(d, { runId: other.runId, baselineChoice: 'advisory' }),
      (error: unknown) => error instanceof NoBaselineChoiceError && error.code === 'no_baseline_choice' && error.message === `Nothing waits for a baseline choice in run ${other.runId}`,
    );
    assert.throws(() => resumeRun(d, { runId: other.runId, baselineChoice: 'required' }), NoBaselineChoiceError);
    assert.equal(other.state.decisions.some((x) => x.fact.type === 'baseline_choice'), false);
  });

  it('required keeps a check of work still to be done as a gate: each task is judged by its exit code, so the one whose work makes it pass merges and the other is held', async () => {
    const d = await door();
    // `test -f done.txt` fails on the base (no task wrote done.txt yet); a writes it, b does not.
    const checkPlan: Plan = { goal: 'write done.txt', tasks: [task('a'), task('b')] };
    const checkScenario = { tasks: { a: { actor: [write({ 'done.txt': 'done\n' })], critic: [green] }, b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] } } };
    const session = scriptedRun(d, checkPlan, checkScenario, { settings: { gateCommands: ['test -f done.txt'], maxAttempts: 1 } });
    assert.equal(await driveToEnd(d, session), 'paused');
    assert.equal(
      session.state.pausedReason,
      '`test -f done.txt` fails on main before any task changed anything, and no test runner says which tests: treat it as advisory for this run ' +
        '(its failures are shown and fail no gate), keep it as required (a check of work still to be done: the tasks must make it pass), or cancel the run',
    );

    const seq = session.state.lastSeq;
    const ready = resumeRun(d, { runId: session.runId, baselineChoice: 'required' });
    assert.deepEqual(eventTypes(session, seq), ['baseline_choice', 'run_resumed']);
    assert.deepEqual(session.state.baseline?.required, ['test -f done.txt']);
    assert.deepEqual(session.state.baseline?.advisory, []);
    await driveToEnd(d, ready.session);

    assert.deepEqual(lastGate(session, 'a'), { passed: true, commands: [{ command: 'test -f done.txt', exitCode: 0, advisory: undefined }] });
    assert.deepEqual(lastGate(session, 'b'), { passed: false, commands: [{ command: 'test -f done.txt', exitCode: 1, advisory: undefined }] }, 'failing on the base too does not excuse it');
    assert.equal(session.task('a').state, 'MERGED');
    assert.notEqual(session.task('b').state, 'MERGED');
  });

  it('cancel ends the paused run, its unstarted tasks cancelled; resumed later, it still asks for the choice, no longer offering to cancel', async () => {
    const { d, session } = await pausedForChoice();
    await cancelRun(d, { runId: session.runId });
    assert.equal(session.state.status, 'cancelled');
    assert.equal(session.state.finishedSummary, 'cancelled by the user: `npm run lint` fails on the base (2 tasks not finished)');
    assert.deepEqual(session.state.taskOrder.map((id) => session.task(id).state), ['CANCELLED', 'CANCELLED']);
    assert.throws(
      () => resumeRun(d, { runId: session.runId }),
      (error: unknown) => error instanceof BaselineChoiceNeededError && error.next.map((s) => s.kind).join() === 'treatAsAdvisory,keepAsRequired',
    );
    const ready = resumeRun(d, { runId: session.runId, baselineChoice: 'advisory' });
    assert.equal(await driveToEnd(d, ready.session), 'completed');
    assert.deepEqual(session.state.taskOrder.map((id) => session.task(id).state), ['MERGED', 'MERGED']);
  });
});

describe('the choice made ahead, for a run nobody watches (taskloom.gate.onBaseFailure)', () => {
  it('--on-base-failure required: a check that fails on the base until the task writes its file is kept as a gate, the run completes without pausing, and the ledger says the setting answered', () => {
    const r = repo();
    const plan = { goal: 'write done.txt', tasks: [task('a')] };
    const scenario = { tasks: { a: { actor: [write({ 'done.txt': 'done\n' })], critic: [green] } } };
    const result = runScripted(r.dir, plan, scenario, '--gate', 'test -f done.txt', '--on-base-failure', 'required');
    const output = `${result.stdout}\n${result.stderr}`;
    assert.equal(result.code, EXIT.ok, output);
    assert.match(output, /`test -f done\.txt` required \(set ahead by taskloom\.gate\.onBaseFailure\): a check of work still to be done, judged by its exit code/);

    const events = runEvents(r.dir);
    assert.equal(events.find((e) => e.type === 'run_paused'), undefined, 'nobody was asked');
    const choice = events.find((e) => e.type === 'baseline_choice');
    assert.deepEqual(choice && { commands: choice.commands, choice: choice.choice, bySetting: choice.bySetting }, { commands: ['test -f done.txt'], choice: 'required', bySetting: true });
    const gates = events.flatMap((e) => (e.type === 'gate_result' && e.taskId === 'a' ? [e.commands.map((c) => [c.command, c.exitCode, c.advisory])] : []));
    assert.deepEqual(gates, [[['test -f done.txt', 0, undefined]]], 'judged by its exit code: passed once the task wrote done.txt');
    const { runId, status } = trace(r.dir);
    assert.equal(status, 'completed');
    const ledger = readFileSync(join(r.dir, '.taskloom', 'runs', runId, 'DECISIONS.md'), 'utf8');
    assert.match(ledger, /taskloom\.gate\.onBaseFailure treats \\`test -f done\.txt\\` as required: a check of work still to be done, which the tasks must make pass/);
  });
});
