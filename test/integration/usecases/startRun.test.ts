import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../../src/engine/domain/plan';
import { PlanningError } from '../../../src/engine/run/planner';
import { SettingsError } from '../../../src/engine/run/runConfigFromSettings';
import { draftPlan, startRun } from '../../../src/engine/usecases/startRun';
import { PlanningCancelledError } from '../../../src/engine/usecases/useCaseErrors';
import { EDITOR_SETTING_KEYS } from '../../../src/protocol/runSettings';
import { green, task, write } from '../../helpers/scriptedRun';
import { scriptedSettings } from '../../helpers/scriptedSettings';
import { doorsOfThisFile, driveToEnd } from '../../helpers/useCaseDoor';
import { approvePlan } from '../../../src/engine/usecases/planApproval';

const { door } = doorsOfThisFile();

const plan: Plan = { goal: 'the plan file says', tasks: [task('a')] };
const tasks = { a: { actor: [write({ 'a.txt': 'a\n' })], critic: [green] } };

describe('startRun and draftPlan', () => {
  it("takes a plan handed in as the run's plan, waiting for approval, under the goal the user gave", async () => {
    const d = await door();
    const started = startRun(d, { goal: 'the goal typed', plan, settings: scriptedSettings({ tasks }), baseDir: d.engine.repo.root });
    const { state } = started.session;
    assert.deepEqual([state.status, state.planApproved, state.goal, started.plan?.goal], ['planning', false, 'the goal typed', 'the goal typed']);
    assert.deepEqual(state.taskOrder, ['a']);
    assert.deepEqual(state.decisions.map((x) => x.fact.type), ['run_created'], 'no planner draft: the person wrote it');
    assert.notEqual(state.planDraftedByAgent, true, "so its sensitive lists count as a person's");
    const { session } = approvePlan(d, { runId: state.runId, by: 'autopilot' });
    assert.equal(await driveToEnd(d, session), 'completed');
  });

  it('refuses before creating a run when an agent it calls is not there, naming the setting as its door does', async () => {
    const d = await door();
    assert.throws(
      () => startRun(d, { goal: 'needs claude', settings: { ...scriptedSettings({ tasks }), agent: 'claude', claudePath: '/nowhere/claude' }, baseDir: d.engine.repo.root }),
      (error: unknown) => error instanceof SettingsError && error.setting === 'claudePath' && error.hint!.includes(EDITOR_SETTING_KEYS.claudePath),
    );
    assert.deepEqual(d.engine.store.listRuns(), []);
  });

  it('drafts the plan with the planner; the run then waits for approval', async () => {
    const d = await door();
    const drafted = { goal: 'x', tasks: [task('one'), task('two', ['one'])] };
    const { session, plan: handedIn } = startRun(d, { goal: 'two steps', settings: scriptedSettings({ planner: [{ output: drafted, delayMs: 0 }], tasks: {} }), baseDir: d.engine.repo.root });
    assert.equal(handedIn, undefined);
    const planned = await draftPlan(d, session, new AbortController().signal);
    assert.deepEqual(planned.tasks.map((t) => t.id), ['one', 'two']);
    assert.deepEqual([session.state.status, session.state.planApproved], ['planning', false]);
  });

  it("ends a failed planning failed, keeping the planner's answer; a cancelled one cancelled", async () => {
    const d = await door();
    const failing = startRun(d, { goal: 'no plan', settings: scriptedSettings({ planner: [{ raw: 'no plan here', delayMs: 0 }] }), baseDir: d.engine.repo.root }).session;
    await assert.rejects(draftPlan(d, failing, new AbortController().signal), PlanningError);
    assert.equal(failing.state.status, 'failed');
    assert.match(failing.state.finishedSummary ?? '', /no valid plan/);

    const slow = startRun(d, { goal: 'slowly', settings: scriptedSettings({ planner: [{ output: plan, delayMs: 30_000 }] }), baseDir: d.engine.repo.root }).session;
    const controller = new AbortController();
    // Cancelled once the planner is at work (its call is recorded as it starts).
    slow.onEvent((event) => {
      if (event.type === 'agent_transcript') controller.abort();
    });
    await assert.rejects(draftPlan(d, slow, controller.signal), (error: unknown) => error instanceof PlanningCancelledError && error.code === 'planning_cancelled');
    assert.deepEqual([slow.state.status, slow.state.finishedSummary], ['cancelled', 'cancelled while planning; nothing was built']);
  });
});
