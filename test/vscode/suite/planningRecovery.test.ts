import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { TaskloomTestApi } from '../../../src/extension/testApi';
import { planningScenarios } from '../fixtures/planningScenario';
import { SUITE_GOAL } from '../fixtures/scenario';
import { RUN_VIEW, runView } from './pages/runViewPage';
import { Notification, quickInput, workbench } from './pages/workbenchPage';
import { forgetWebviewWorkers, pressKey, reloadWindow, testPhase, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { newestRun, taskloom, waitFor, workspaceFolder } from './vscodeUtil';

const SCENARIOS = planningScenarios(50);
const FLAKY_DESCRIPTION = 'Add an HTML report of the word counts.';

/** Has the scripted planner answer as `which` from its next call on (the agent reads its script on every call). */
function planWith(folder: string, which: keyof typeof SCENARIOS): void {
  const path = vscode.workspace.getConfiguration('taskloom', vscode.Uri.file(folder)).get<string>('scripted.scenario');
  assert.ok(path, 'the workspace names the scripted agent’s scenario');
  writeFileSync(path, JSON.stringify(SCENARIOS[which], null, 2));
}

/** A new run of the folder (not one of `before`) whose plan waits for review, once it does. */
function newPlanWaiting(api: TaskloomTestApi, folder: string, before: readonly string[]) {
  return waitFor('a new plan waiting for review', () => {
    const entry = newestRun(api, folder);
    return entry?.state && !before.includes(entry.summary.runId) && entry.summary.status === 'planning' && !entry.summary.active && entry.state.plan.tasks.length > 0
      ? entry
      : undefined;
  });
}

const runIds = (api: TaskloomTestApi, folder: string) => api.services.controller.model.runs(folder).map((e) => e.summary.runId);

/** One run view at a time (the page objects read the first webview on the page), loading as a first one does. */
async function showOnly(ref: { folder: string; runId: string }): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await forgetWebviewWorkers();
  await vscode.commands.executeCommand('taskloom.showRun', ref);
}

/**
 * Planning that never strands the user: a plan's incomplete task is a finding to fill in, not a
 * rejected plan; a planning that leaves no plan offers Plan Again and the rejected plan; a bad
 * plan file opens at its problems; every stopped run offers the step that works from it; and
 * after a reload the sidebar says it is loading rather than that there are no runs.
 */
suite('Planning that recovers', function () {
  this.timeout(240_000);
  const folder = workspaceFolder();

  if (testPhase() === 2) {
    test('after a reload the Runs view never says "No Taskloom runs" while it lists the runs (it says it is loading)', async () => {
      const began = Date.now();
      await vscode.commands.executeCommand('workbench.view.extension.taskloom');
      const welcomes = new Set<string>();
      const rows = await waitFor('the runs in the sidebar', async () => {
        for (const text of await workbench.runsViewWelcome()) welcomes.add(text.replace(/\s+/g, ' ').trim());
        const labels = await workbench.runsViewRows();
        return labels.length > 0 ? labels : undefined;
      }).catch(async (error: unknown) => {
        await takeScreenshot('runs-after-reload-failed');
        throw error;
      });
      console.log(`[taskloom-test] the Runs view showed ${rows.length} runs ${Date.now() - began} ms into the window; welcome texts seen: ${JSON.stringify([...welcomes])}`);
      assert.ok(![...welcomes].some((text) => /No Taskloom runs/.test(text)), `never "no runs" while there are runs: ${JSON.stringify([...welcomes])}`);
      const api = await taskloom();
      assert.ok(api.services.controller.model.runs(folder).length >= 5, 'every run of the workspace is listed');
      await takeScreenshot('runs-after-reload');
    });
    return;
  }

  let cancelledBeforeApproval = '';

  test('a task the planner left without a description is a finding in the plan review: the rest is kept, approval waits until it is filled in', async () => {
    const api = await taskloom();
    planWith(folder, 'incomplete');
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    void vscode.commands.executeCommand('taskloom.startGoal', { folder, goal: SUITE_GOAL });
    const planned = await newPlanWaiting(api, folder, []);
    const ref = { folder, runId: planned.summary.runId };
    assert.deepEqual(
      planned.state!.plan.tasks.map((t) => [t.id, t.description === '']),
      [['slugify', false], ['word-count', false], ['title-case', false], ['summary', false], ['flaky', true]],
      'the planner’s other tasks are kept',
    );
    const review = new Notification('has no description');
    await review.shown();
    assert.match(await review.message(), /drafted 5 tasks for ".+", but task "flaky" has no description: fill it in or drop the task before the run can start/);
    assert.deepEqual(await review.buttons(), ['Fill In…', 'Drop Task', 'Edit Plan']);
    await runView.planFindingShown('flaky');
    assert.match((await runView.planFindingTexts()).join(' '), /flaky has no description/);
    await runView.approveDisabledShown();
    await takeScreenshot('plan-finding');

    // Approving anyway is refused, saying what to do.
    await vscode.commands.executeCommand('taskloom.approvePlan', ref);
    const refused = new Notification('cannot start yet');
    await refused.shown();
    assert.match(await refused.message(), /task "flaky" has no description.*Fill in what is missing or drop the task/);
    assert.equal(api.services.controller.model.run(folder, ref.runId)!.state!.planApproved, false);

    // Filled in from the run view, as a person does.
    await runView.click(RUN_VIEW.planFindingButton('flaky', 'fill'));
    await quickInput.saying('the description of task "flaky"');
    await typeText(FLAKY_DESCRIPTION);
    await pressKey('Enter');
    await waitFor('the filled-in plan', () => api.services.controller.model.run(folder, ref.runId)?.state?.plan.tasks.find((t) => t.id === 'flaky')?.description === FLAKY_DESCRIPTION);
    await runView.planFindingsGone();
    await runView.approveEnabledShown();
    await new Notification('Start the run with this plan?').shown();
    await takeScreenshot('plan-finding-filled');

    // Left unapproved: cancelled before approval, for the next test.
    await vscode.commands.executeCommand('taskloom.rejectPlan', ref);
    await waitFor('the run to end unapproved', () => api.services.controller.model.run(folder, ref.runId)?.summary.status === 'cancelled');
    cancelledBeforeApproval = ref.runId;
  });

  test('a run cancelled before approval offers Start Again with This Plan and Plan Again, never Resume; a run cancelled mid-way offers Resume, which works', async () => {
    const api = await taskloom();
    const cancelled = { folder, runId: cancelledBeforeApproval };
    await showOnly(cancelled);
    await runView.nextStepShown();
    assert.deepEqual(await runView.nextStepButtons(), ['Start Again with This Plan', 'Plan Again']);
    assert.match((await runView.nextStepTexts()).join(' '), /Cannot be resumed: it stopped before its plan was approved/);
    // The Runs tree agrees: its row offers starting again, not Resume.
    const row = api.services.runsTree.getTreeItem(api.services.runsTree.runNode(folder, cancelled.runId));
    assert.doesNotMatch(String(row.contextValue), /\.resumable/);
    assert.match(String(row.contextValue), /\.startAgain\.withPlan/);
    await takeScreenshot('cancelled-before-approval');

    const before = runIds(api, folder);
    await runView.click(RUN_VIEW.nextStepButton('startWithPlan'));
    const again = await newPlanWaiting(api, folder, before);
    assert.equal(again.state!.plan.tasks.find((t) => t.id === 'flaky')?.description, FLAKY_DESCRIPTION, 'the same plan, as it was filled in');
    const ref = { folder, runId: again.summary.runId };
    await vscode.commands.executeCommand('taskloom.approvePlan', ref);
    await waitFor('an agent at work', () => {
      const state = api.services.controller.model.run(folder, ref.runId)?.state;
      return state?.taskOrder.some((id) => state.tasks[id]!.state === 'BUILDING');
    });
    await vscode.commands.executeCommand('taskloom.cancelRun', ref);
    await waitFor('the run to stop cancelled', () => {
      const entry = api.services.controller.model.run(folder, ref.runId);
      return entry && !entry.summary.active && entry.summary.status === 'cancelled';
    });
    await showOnly(ref);
    await runView.nextStepShown();
    assert.deepEqual(await runView.nextStepButtons(), ['Resume']);
    await takeScreenshot('cancelled-resume');
    await runView.click(RUN_VIEW.nextStepButton('resume'));
    await waitFor('the run to be driven again', () => api.services.controller.model.run(folder, ref.runId)?.summary.active);
    await vscode.commands.executeCommand('taskloom.cancelRun', ref);
    await waitFor('the run to stop again', () => !api.services.controller.model.run(folder, ref.runId)?.summary.active);
  });

  test('a planning that leaves no plan offers Plan Again and the rejected plan; the status bar does not keep it as the current run', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    planWith(folder, 'garbage');
    const before = runIds(api, folder);
    void vscode.commands.executeCommand('taskloom.startGoal', { folder, goal: SUITE_GOAL });
    const failedToast = new Notification('planning failed');
    // Read in the notification centre, opened afresh until it shows: the earlier tests' toasts can
    // fill the corner, and the centre keeps every notification with its buttons.
    await waitFor('the planning failure in the notification centre', async () => {
      await vscode.commands.executeCommand('notifications.hideList');
      await vscode.commands.executeCommand('notifications.showList');
      return (await failedToast.all()).length > 0;
    }, 60_000);
    assert.match(await failedToast.message(), /The planner gave no valid plan/);
    assert.deepEqual(await failedToast.buttons(), ['Plan Again', 'Open Plan']);
    const failed = newestRun(api, folder)!;
    assert.ok(!before.includes(failed.summary.runId) && failed.summary.status === 'failed', 'the planning’s run ended failed');
    const ref = { folder, runId: failed.summary.runId };
    // No run goes on, so the status bar shows none: not the failed planning as if it were current.
    await waitFor('the status bar to show no run', async () => !(await workbench.statusBarTexts()).some((text) => /Taskloom \d+\/\d+/.test(text)), 30_000);
    await waitFor('the failed planning in Needs You', () => api.services.needsYou.getChildren().some((item) => item.kind === 'planFailed' && item.runId === ref.runId));
    await takeScreenshot('planning-failed');

    await failedToast.press('Open Plan');
    await vscode.commands.executeCommand('notifications.hideList');
    const document = await waitFor('the rejected plan in an editor', () => {
      const open = vscode.window.activeTextEditor?.document;
      return open?.fileName.endsWith(`${ref.runId}.rejected.plan.json`) ? open : undefined;
    });
    assert.match(document.getText(), /I am not sure how to split this goal up/);
    const problems = await waitFor('its problem where it is', () => {
      const found = vscode.languages.getDiagnostics(document.uri).filter((d) => d.source === 'Taskloom plan');
      return found.length ? found : undefined;
    });
    assert.match(problems[0]!.message, /invalid JSON at line 1/);
    await new Notification('has 1 problem').shown();
    await takeScreenshot('rejected-plan-open');

    // Plan Again, from the failed run's view, with a planner that answers now.
    planWith(folder, 'good');
    await showOnly(ref);
    await runView.nextStepShown();
    assert.deepEqual(await runView.nextStepButtons(), ['Plan Again', 'Open Rejected Plan']);
    const beforeAgain = runIds(api, folder);
    await runView.click(RUN_VIEW.nextStepButton('planAgain'));
    const replanned = await newPlanWaiting(api, folder, beforeAgain);
    assert.equal(replanned.summary.goal, failed.summary.goal, 'the same goal, planned again');
    assert.equal(replanned.state!.plan.tasks.length, 5);
    await vscode.commands.executeCommand('taskloom.rejectPlan', { folder, runId: replanned.summary.runId });
  });

  test('an invalid plan file opens at its first problem, its problems marked where they are; fixed and saved, it starts a run', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    mkdirSync(join(folder, 'plans'), { recursive: true });
    const file = join(folder, 'plans', 'report.plan.json');
    const plan = {
      goal: 'An HTML report',
      tasks: [
        { id: 'table', title: 'Render the table', description: 'Render the counts as an HTML table.', dependsOn: [] },
        { id: 'page', title: '', description: 'Wrap the table in a page.', dependsOn: ['Table'] },
      ],
    };
    const text = `${JSON.stringify(plan, null, 2)}\n`;
    writeFileSync(file, text);
    void vscode.commands.executeCommand('taskloom.startGoal', { folder, planFile: file });
    const editor = await waitFor('the plan file open', () => (vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined));
    const problems = await waitFor('its problems marked', () => {
      const found = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.source === 'Taskloom plan');
      return found.length === 2 ? found : undefined;
    });
    const lines = text.split('\n');
    assert.equal(editor.selection.start.line, lines.findIndex((l) => l.includes('"title": ""')), 'the cursor is on the first problem');
    const unknown = problems.find((d) => /unknown task "Table" \(did you mean "table"\?\)/.test(d.message));
    assert.equal(unknown?.range.start.line, lines.findIndex((l) => l.includes('"Table"')), problems.map((d) => d.message).join('; '));
    const toast = new Notification('has 2 problems');
    await toast.shown();
    assert.deepEqual(await toast.buttons(), ['Open Plan', 'Show Problems']);
    await toast.press('Show Problems');
    await workbench.problemShown('must not be empty');
    await takeScreenshot('plan-file-problems');

    // Fixed and saved as a person does: the problems go, and a run can start from it.
    const fixed = text.replace('"title": ""', '"title": "Wrap it in a page"').replace('"Table"', '"table"');
    const shown = await vscode.window.showTextDocument(editor.document, { preview: false });
    assert.ok(await shown.edit((e) => e.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), fixed)));
    await pressKey('Control+S');
    const valid = new Notification('The plan is valid');
    await valid.shown();
    await waitFor('the problems to go', () => !vscode.languages.getDiagnostics(editor.document.uri).some((d) => d.source === 'Taskloom plan'));
    const before = runIds(api, folder);
    await valid.press('Start Run');
    const started = await newPlanWaiting(api, folder, before);
    assert.deepEqual(started.state!.plan.tasks.map((t) => t.id), ['table', 'page']);
    await vscode.commands.executeCommand('taskloom.rejectPlan', { folder, runId: started.summary.runId });
  });

  test('the window reloads with the runs on disk', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    await reloadWindow();
  });
});
