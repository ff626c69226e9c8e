import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { PlanNotReadyError } from '../../../src/engine/plan/planReview';
import { approvePlan, rejectPlan, revisePlan } from '../../../src/engine/usecases/planApproval';
import { draftPlan, startRun } from '../../../src/engine/usecases/startRun';
import { NoPlanWaitingError, RunBusyError } from '../../../src/engine/usecases/useCaseErrors';
import { green, task, write } from '../../helpers/scriptedRun';
import { scriptedSettings } from '../../helpers/scriptedSettings';
import { doorsOfThisFile, driveToEnd, scriptedRun } from '../../helpers/useCaseDoor';

const { door } = doorsOfThisFile();

const plan: Plan = { goal: 'two files', tasks: [task('a'), task('b')] };
const scenario = { tasks: { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] }, b: { actor: [write({ 'b.txt': 'b\n' })], critic: [green] } } };
const rounds = (state: { decisions: Array<{ fact: { type: string } }> }) => state.decisions.filter((d) => d.fact.type === 'plan_proposed').length;

describe('approving, editing and rejecting a plan', () => {
  it('approves a person’s edit as the next draft, and approves only once', async () => {
    const d = await door();
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    const { session } = approvePlan(d, { runId: waiting.runId, plan: { ...plan, tasks: [plan.tasks[1]!] }, by: 'human' });
    assert.deepEqual(session.state.plan.tasks.map((t) => t.id), ['b']);
    assert.deepEqual([rounds(session.state), session.state.planApproved, session.state.planApprovedBy], [1, true, 'human']);
    assert.throws(() => approvePlan(d, { runId: waiting.runId, by: 'human' }), (error: unknown) => error instanceof NoPlanWaitingError && error.code === 'no_plan_waiting' && error.next[0]?.kind === 'resume');
    assert.equal(await driveToEnd(d, session), 'completed');
    assert.throws(() => rejectPlan(d, { runId: waiting.runId }), /has no plan waiting for approval \(it is completed\)/);
  });

  it('takes a plan sent back unchanged as no new draft', async () => {
    const d = await door();
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    approvePlan(d, { runId: waiting.runId, plan, by: 'autopilot' });
    assert.equal(rounds(waiting.state), 0);
  });

  it('refuses to approve a drafted plan with a task left incomplete, until a person fills it in', async () => {
    const d = await door();
    const drafted = { goal: 'x', tasks: [task('one'), { ...task('two'), description: '' }] };
    const { session } = startRun(d, { goal: 'incomplete', settings: scriptedSettings({ planner: [{ output: drafted, delayMs: 0 }], tasks: {} }), baseDir: d.engine.repo.root });
    await draftPlan(d, session, new AbortController().signal);
    assert.throws(() => approvePlan(d, { runId: session.runId, by: 'human' }), PlanNotReadyError);
    assert.equal(session.state.planApproved, false);
    const revised = revisePlan(d, { runId: session.runId, fix: { taskId: 'two', fill: { field: 'description', text: 'do two' } } });
    assert.equal(revised.tasks[1]!.description, 'do two');
    assert.equal(approvePlan(d, { runId: session.runId, by: 'human' }).session.state.planApproved, true);
  });

  it('rejects a plan waiting for approval: the run ends, nothing built, with the reason given', async () => {
    const d = await door();
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    rejectPlan(d, { runId: waiting.runId, reason: '  not now  ' });
    assert.deepEqual([waiting.state.status, waiting.state.finishedSummary], ['cancelled', 'not now']);
    assert.throws(() => approvePlan(d, { runId: waiting.runId, by: 'human' }), /has no plan waiting for approval \(it is cancelled\)/);
  });

  it('leaves a run its door is planning alone', async () => {
    const d = await door({ backgroundWork: () => 'planning' });
    const waiting = scriptedRun(d, plan, scenario, { approve: false });
    for (const change of [() => approvePlan(d, { runId: waiting.runId, by: 'human' }), () => rejectPlan(d, { runId: waiting.runId }), () => revisePlan(d, { runId: waiting.runId, fix: { taskId: 'a', drop: true } })]) {
      assert.throws(change, RunBusyError);
    }
    assert.deepEqual([waiting.state.status, waiting.state.lastSeq], ['planning', 1]);
  });
});
