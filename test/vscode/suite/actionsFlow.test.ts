import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { SUITE_GOAL } from '../fixtures/scenario';
import { approvedRun, pauseOnBase } from '../fixtures/baselinePause';
import { DEMO_PLAN } from '../../../src/engine/demo/demoProject';
import { command } from '../../helpers/gateEvents';
import { RUN_VIEW, runView } from './pages/runViewPage';
import { Notification, quickInput, workbench } from './pages/workbenchPage';
import { pressKey, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { watchRunViews } from './runViewWatch';
import { answeringConfirmations, lastSeqOf, settled, taskloom, taskStates, waitFor, workspaceFolder, startGoalAwaitingApproval } from './vscodeUtil';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
/** The goal of the first run, whose plan is cancelled at its approval (the scripted planner drafts the same plan for any goal). */
const CANCELLED_GOAL = 'Grow textkit, a draft to cancel';
const REVIEW_OF_CANCELLED = new Notification(`for "${CANCELLED_GOAL}"`);
const REVIEW_OF_RUN = new Notification(`for "${SUITE_GOAL}"`);
/** The goal of the run seeded paused on its base (issue 27). */
const BASE_GOAL = 'Grow textkit on a base that fails its lint';
/** The goal of the run paused on a check of work still to be done, and the check. */
const CHECK_GOAL = 'Add the textkit command, checked by its file';
const CHECK = 'test -f bin/textkit.js';

/**
 * Every notification now, in the centre, from its newest: a toast hides itself, the centre keeps it
 * and its buttons. Opened afresh, as the centre left open keeps its scroll when a notification
 * above comes or goes.
 */
async function allNotifications(): Promise<void> {
  await vscode.commands.executeCommand('notifications.hideList');
  await vscode.commands.executeCommand('notifications.showList');
}

/** The tasks a "needs you" notification names: `"flaky" needs you: …`, or `3 tasks of run "…" need you: a, b, c.` */
function tasksNamed(text: string): string[] {
  const one = /"([\w-]+)" needs you:/.exec(text);
  if (one) return [one[1]!];
  const many = /(\d+) tasks of run ".*" need you(?: \(\d+ in all\))?: (.*)\.$/.exec(text);
  assert.ok(many, `a notification that names who needs you: ${text}`);
  const names = many[2]!.split(', ');
  assert.equal(names.length, Number(many[1]), `its count is the tasks it names: ${text}`);
  return names;
}

/**
 * Actions only where they work, and words that say what is so (issue 23, items 5, 6, 7 and 9), on
 * the demo project with the scripted agent (three tasks end needing you, one skipped because its
 * dependency did, no remote): a notification's button pressed after the run moved on says what
 * happened instead of failing; a task that comes to need you is a notification; rows, the run
 * view and the palette offer what applies; a cancelled run's tasks read "not started"; an
 * attempt's lines carry that attempt's numbers.
 */
suite('Only actions that work, and words that are so', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  let cancelledRunId = '';
  let runId = '';

  test('a plan cancelled at its approval: the review notification’s Approve then says the run was cancelled, and its tasks read not started', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    const planned = await startGoalAwaitingApproval(api, folder, CANCELLED_GOAL);
    cancelledRunId = planned.summary.runId;
    await REVIEW_OF_CANCELLED.shown(30_000);
    assert.deepEqual(await REVIEW_OF_CANCELLED.buttons(), ['Approve', 'Edit', 'Cancel Run']);
    await waitFor('the run view to draw the plan', () => watchRunViews(api).drawn(cancelledRunId));
    await runView.planShown();
    // Cancelled in the run view; the notification stays, with its buttons.
    await runView.click(RUN_VIEW.cancelPlanButton);
    await waitFor('the run to be cancelled', () => api.services.controller.model.run(folder, cancelledRunId)?.summary.status === 'cancelled');
    await allNotifications();
    await REVIEW_OF_CANCELLED.press('Approve');
    const said = new Notification('was cancelled');
    await said.shown(30_000);
    assert.equal(await said.message(), `Taskloom: Run "${CANCELLED_GOAL}" was cancelled.`);
    assert.deepEqual(await new Notification('no plan waiting').all(), [], 'the engine was not asked: no error about it');
    assert.equal(api.services.controller.model.run(folder, cancelledRunId)!.state!.planApproved, false, 'nothing was approved');

    // Its tasks never started, and nothing will start them: the tree and the run view say so, not "pending".
    const { runsTree } = api.services;
    const rows = (await runsTree.getChildren(runsTree.runNode(folder, cancelledRunId))).map((node) => runsTree.getTreeItem(node));
    assert.equal(rows.length, 5);
    for (const row of rows) {
      assert.match(String(row.description), /^not started \(run cancelled\)/, String(row.label));
      assert.equal((row.iconPath as vscode.ThemeIcon).id, 'circle-slash');
    }
    await runView.statusShown('cancelled');
    await waitFor('the graph to say not started', async () => {
      const states = await runView.graphStates();
      return states.length === 5 && states.every((s) => s === 'not started');
    });
    await takeScreenshot('plan-cancelled-not-started');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('a second plan approved in the run view: its notification’s Approve then says the plan was already approved', async () => {
    const api = await taskloom();
    const planned = await startGoalAwaitingApproval(api, folder, SUITE_GOAL);
    runId = planned.summary.runId;
    await REVIEW_OF_RUN.shown(30_000);
    await waitFor('the run view to draw the plan', () => watchRunViews(api).drawn(runId));
    await runView.planShown();
    await runView.click(RUN_VIEW.approvePlanButton);
    await waitFor('the plan to be approved', () => api.services.controller.model.run(folder, runId)?.state?.planApproved);
    await allNotifications();
    await REVIEW_OF_RUN.press('Approve');
    const said = new Notification('was already approved');
    await said.shown(30_000);
    assert.equal(await said.message(), `Taskloom: The plan of run "${SUITE_GOAL}" was already approved.`);
    assert.deepEqual(await new Notification('is already approved').all(), [], 'the engine was not asked: no error about it');
    await vscode.commands.executeCommand('notifications.hideList');
    const entry = await settled(api, folder, runId);
    assert.deepEqual(taskStates(entry), { slugify: 'MERGED', 'word-count': 'NEEDS_HUMAN', 'title-case': 'NEEDS_HUMAN', summary: 'SKIPPED', flaky: 'NEEDS_HUMAN' });
  });

  test('each task that comes to need you is told in a notification, counted truly: never the skipped one', async () => {
    const api = await taskloom();
    await allNotifications();
    const texts = await waitFor('the notifications of the three tasks', async () => {
      const shown = (await new Notification(' need').messages()).filter((text) => /needs? you/.test(text));
      const named = shown.flatMap(tasksNamed);
      return named.length >= 3 ? { shown, named } : undefined;
    }, 30_000);
    assert.deepEqual([...texts.named].sort(), ['flaky', 'title-case', 'word-count'], `each once, summary never: ${texts.shown.join(' | ')}`);
    await takeScreenshot('needs-you-notifications');
    await vscode.commands.executeCommand('notifications.hideList');
    // The run view lists the same three as waiting for a decision, and counts no more.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await waitFor('the run view to draw the run', () => watchRunViews(api).drawn(runId, api.services.controller.model.run(folder, runId)!.state!.lastSeq));
    assert.deepEqual(await runView.controlTaskIds(), ['word-count', 'title-case', 'flaky']);
    assert.deepEqual(await runView.controlsMore(), []);
  });

  test('rows, the run view and the palette offer only what works: no Accept without work, no Retry or Diff on a task skipped because of its dependency', async () => {
    const api = await taskloom();
    const { runsTree } = api.services;
    const rows = Object.fromEntries(
      (await runsTree.getChildren(runsTree.runNode(folder, runId))).map((node) => [node.kind === 'task' ? node.taskId : '', runsTree.getTreeItem(node)]),
    );
    assert.match(String(rows['word-count']!.contextValue), /\.can-accept/, 'word-count has work to accept');
    assert.doesNotMatch(String(rows.flaky!.contextValue), /\.can-accept/, 'flaky’s actor failed before changing anything');
    assert.doesNotMatch(String(rows.summary!.contextValue), /\.can-(retry|diff)/, 'summary never started: its dependency did not go green');

    // What a right-click on the rows offers, as the user sees it.
    const flakyMenu = await workbench.runsRowMenu('flaky:');
    for (const item of ['Retry Task', 'Skip Task', 'Show Task Diff', 'Open Task Worktree']) assert.ok(flakyMenu.includes(item), `${item} in ${flakyMenu.join(', ')}`);
    assert.ok(!flakyMenu.includes('Accept Task'), `no Accept: ${flakyMenu.join(', ')}`);
    const summaryMenu = await workbench.runsRowMenu('summary:', true);
    for (const item of ['Retry Task', 'Accept Task', 'Skip Task', 'Show Task Diff']) assert.ok(!summaryMenu.includes(item), `no ${item}: ${summaryMenu.join(', ')}`);
    const wordCountMenu = await workbench.runsRowMenu('word-count:');
    for (const item of ['Retry Task', 'Accept Task', 'Skip Task', 'Show Task Diff']) assert.ok(wordCountMenu.includes(item), `${item} in ${wordCountMenu.join(', ')}`);

    // The run view's buttons for the task picked follow the same rules.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId, taskId: 'flaky' });
    await waitFor('flaky selected', async () => (await runView.selectedTaskLinks())[0] === 'flaky');
    assert.deepEqual(await runView.selectedTaskButtons(), ['Retry…', 'Skip…', 'Take Over', 'Diff']);
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId, taskId: 'summary' });
    await waitFor('summary selected', async () => (await runView.selectedTaskLinks())[0] === 'summary');
    assert.deepEqual(await runView.selectedTaskButtons(), [], 'nothing to do on summary: it comes back when word-count or title-case go green');
    await takeScreenshot('run-view-skipped-by-dependency');

    // From the palette (or a stale button), the command itself refuses, saying why, and asks nothing.
    const asked = await answeringConfirmations(api, 'Accept', () => vscode.commands.executeCommand('taskloom.acceptTask', { folder, runId, taskId: 'flaky' }));
    assert.deepEqual(asked, [], 'no confirmation for an Accept that cannot work');
    await new Notification('"flaky" produced no work to accept').shown(30_000);
    await vscode.commands.executeCommand('taskloom.retryTask', { folder, runId, taskId: 'summary' });
    await new Notification('"summary" was skipped because a task it depends on did not go green').shown(30_000);
    assert.equal(taskStates(api.services.controller.model.run(folder, runId)!).summary, 'SKIPPED');
  });

  test('a task’s notification pressed after it was decided says what happened: Retry on a task skipped meanwhile', async () => {
    const api = await taskloom();
    // Decided as the user would: Retry with a note, Accept, then a second Retry of flaky, whose actor fails again.
    const beforeRetry = lastSeqOf(api, folder, runId);
    await runView.click(RUN_VIEW.taskButton('word-count', 'retry'));
    await quickInput.shown();
    await typeText('split on any whitespace');
    await pressKey('Enter');
    await settled(api, folder, runId, beforeRetry);
    const beforeAccept = lastSeqOf(api, folder, runId);
    await answeringConfirmations(api, 'Accept', () => vscode.commands.executeCommand('taskloom.acceptTask', { folder, runId, taskId: 'title-case' }));
    await settled(api, folder, runId, beforeAccept);
    await allNotifications();
    const flakyBefore = (await new Notification('"flaky" needs you').all()).length;
    await vscode.commands.executeCommand('notifications.hideList');
    const beforeFlaky = lastSeqOf(api, folder, runId);
    await answeringConfirmations(api, undefined, () => vscode.commands.executeCommand('taskloom.retryTask', { folder, runId, taskId: 'flaky' }, { note: 'once more' }));
    let entry = await settled(api, folder, runId, beforeFlaky);
    assert.deepEqual(taskStates(entry), { slugify: 'MERGED', 'word-count': 'MERGED', 'title-case': 'MERGED', summary: 'MERGED', flaky: 'NEEDS_HUMAN' });

    const flakyNeedsYou = new Notification('"flaky" needs you');
    await waitFor('a notification that flaky needs you again', async () => (await flakyNeedsYou.all()).length > flakyBefore, 30_000);
    await flakyNeedsYou.shown();
    assert.deepEqual(await flakyNeedsYou.buttons(), ['Open', 'Retry', 'Skip']);
    await takeScreenshot('needs-you-notification');
    // Skipped in the run view; the notification is still up, with its Retry.
    const beforeSkip = lastSeqOf(api, folder, runId);
    await answeringConfirmations(api, 'Skip', () => runView.click(RUN_VIEW.taskButton('flaky', 'skip')).then(() => waitFor('flaky skipped', () => taskStates(api.services.controller.model.run(folder, runId)!).flaky === 'SKIPPED')));
    entry = await settled(api, folder, runId, beforeSkip);
    assert.equal(entry.summary.status, 'completed');
    await allNotifications();
    await flakyNeedsYou.press('Retry');
    const said = new Notification('no longer needs you');
    await waitFor('what happened instead', async () => {
      await allNotifications();
      return (await said.all()).length > 0;
    }, 30_000);
    assert.equal(await said.message(), 'Taskloom: "flaky" no longer needs you: it is skipped now.');
    assert.equal(taskStates(api.services.controller.model.run(folder, runId)!).flaky, 'SKIPPED', 'the stale Retry did not run');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('under each attempt, that attempt’s numbers: the critic’s first review of attempt 2 reads "review 1", never "attempt 1"', async () => {
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await runView.showTab('transcript');
    await runView.transcriptTaskPickerShown();
    await runView.pickTranscriptTask(':word-count');
    // Attempt 2 is not the newest (a conflict was resolved after it): its calls are opened as a person would.
    await runView.openTranscriptCall('Attempt 2', 'critic');
    const texts = await waitFor('the lines of attempt 2', async () => {
      const shown = await runView.transcriptGroupTexts('Attempt 2');
      return shown.some((text) => text.includes('scripted critic started on task word-count, review 1')) ? shown : undefined;
    }, 30_000);
    assert.ok(texts.includes('actor · attempt 2') && texts.includes('critic · review 1'), texts.join(' | '));
    assert.deepEqual(texts.filter((text) => /attempt 1\b/.test(text)), [], 'nothing under attempt 2 speaks of attempt 1');
    await takeScreenshot('transcript-attempt-2');
  });

  test('a completed run offers what works: no pull request without a remote, and no Apply once applied', async () => {
    const api = await taskloom();
    const ended = new Notification('completed —');
    await allNotifications();
    await ended.shown(30_000);
    assert.deepEqual(await ended.buttons(), ['Review Diff', 'Apply…'], 'the repository has no remote to push a pull request to');
    await vscode.commands.executeCommand('notifications.hideList');
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await runView.deliveryShown('Completed');
    assert.deepEqual(await runView.deliveryButtons(), ['Review Diff', 'Apply…']);
    await vscode.commands.executeCommand('taskloom.openPullRequest', { folder, runId });
    await new Notification('has no remote named origin').shown(30_000);

    const before = git(folder, 'rev-parse', 'HEAD');
    const asked = await answeringConfirmations(api, 'Apply', async (soFar) => {
      await runView.click(RUN_VIEW.deliveryButton('apply'));
      await waitFor('the Apply confirmation', () => soFar.length > 0);
    });
    assert.equal(asked.length, 1);
    await waitFor('the branch to move', () => git(folder, 'rev-parse', 'HEAD') !== before, 60_000);
    await runView.deliveryShown('Applied to main');
    assert.deepEqual(await runView.deliveryButtons(), ['Review Diff'], 'applied: Apply is no longer offered, nor primary');
    await takeScreenshot('run-view-applied');
    // The Runs row re-renders on its own tick, after the run view: a busy machine shows the old menu a moment longer.
    let runMenu: string[] = [];
    await waitFor('the Runs row to drop Apply', async () => {
      runMenu = await workbench.runsRowMenu('Grow textkit: slugs');
      return !runMenu.includes('Apply Integration to Current Branch');
    }, 30_000).catch(() => undefined);
    assert.ok(runMenu.includes('Show Integration Diff'), runMenu.join(', '));
    for (const item of ['Apply Integration to Current Branch', 'Open Pull Request', 'Resume Last Run', 'Resume Run', 'Cancel Run']) {
      assert.ok(!runMenu.includes(item), `no ${item}: ${runMenu.join(', ')}`);
    }
    await vscode.commands.executeCommand('taskloom.applyIntegration', { folder, runId });
    await new Notification('was already applied to main').shown(30_000);
  });

  test('Ctrl+Alt+K R shows the run selected in the Runs view, without asking which', async () => {
    const api = await taskloom();
    const { runsTree, runsView } = api.services;
    await runsView.reveal(runsTree.runNode(folder, cancelledRunId), { select: true, focus: true });
    await vscode.window.showTextDocument(vscode.Uri.file(join(folder, 'README.md')));
    await pressKey('Control+Alt+K', 'r');
    const views = watchRunViews(api);
    await waitFor('the selected run’s view in front', () => views.panel(cancelledRunId)?.panel.active);
    await takeScreenshot('keybinding-selected-run');
  });

  test('a run that pauses because its base fails a command no runner explains: a notification and the run view offer the choice, and Treat as Advisory resumes it', async () => {
    const api = await taskloom();
    const { controller } = api.services;
    // The suite's run's config is this workspace's (its scripted agent, its gate); one task of its plan.
    const template = (await controller.state(folder, runId))!;
    const plan = { goal: BASE_GOAL, tasks: [{ ...template.plan.tasks.find((t) => t.id === 'slugify')!, dependsOn: [] }] };
    const pausedId = approvedRun(folder, plan, template.config);
    await controller.refresh(folder);
    await waitFor('the window to know the run', () => controller.state(folder, pausedId));
    pauseOnBase(folder, pausedId, git(folder, 'rev-parse', 'HEAD'));
    await controller.refreshAll({ reloadStates: true });

    const notice = new Notification(`"${BASE_GOAL}" paused`);
    await notice.shown(30_000);
    assert.equal(
      await notice.message(),
      `Taskloom: run "${BASE_GOAL}" paused: \`npm run lint\` fails on main before any task changed anything, and no test runner says which tests: ` +
        'treat it as advisory for this run (its failures are shown and fail no gate), keep it as required (a check of work still to be done: the tasks must make it pass), or cancel the run.',
    );
    assert.deepEqual(await notice.buttons(), ['Treat as Advisory', 'Keep as Required', 'Cancel Run']);

    // The run view says the same, and offers the same three answers; the baseline is under the run's facts.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId: pausedId });
    await runView.nextStepShown(30_000);
    assert.deepEqual(await runView.nextStepButtons(), ['Treat as Advisory', 'Keep as Required', 'Cancel Run']);
    assert.deepEqual(await runView.runNotes(), [], 'the bar says why the run paused, once');
    await runView.gateNoteShown('Baseline: the gate on main fails `npm test` and `npm run lint`');
    const note = (await runView.gateNoteTexts()).join('\n');
    assert.match(note, /already failing on main: parses dates in the local zone/);
    assert.match(note, /`npm run lint` fails on main and no runner said which tests: the run waits for your choice/);
    const menu = await workbench.runsRowMenu(BASE_GOAL);
    for (const answer of ['Treat Base Failures as Advisory and Resume', 'Keep Base Failures as Required and Resume', 'Cancel Run']) assert.ok(menu.includes(answer), `${answer}: ${menu.join(', ')}`);
    assert.ok(!menu.includes('Resume Run'), menu.join(', '));
    await takeScreenshot('baseline-choice');

    const before = lastSeqOf(api, folder, pausedId);
    await allNotifications();
    await notice.press('Treat as Advisory');
    const entry = await settled(api, folder, pausedId, before);
    const facts = entry.state!.decisions.filter((d) => d.seq > before).map((d) => d.fact);
    assert.deepEqual(facts.find((f) => f.type === 'baseline_choice'), { type: 'baseline_choice', commands: ['npm run lint'], choice: 'advisory' });
    assert.ok(facts.some((f) => f.type === 'run_resumed'), 'the run was resumed');
    assert.deepEqual(entry.state!.baseline?.advisory, ['npm run lint']);
    await runView.gateNoteShown('`npm run lint` fails on main too: advisory for this run (your choice)', 30_000);
    await takeScreenshot('baseline-choice-advisory');

    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('a run paused on a check of work still to be done: Keep as Required resumes it, and each task’s gate judges the check by its exit code', async () => {
    const api = await taskloom();
    const { controller } = api.services;
    // Its gate is one check that fails on main, where no task has added the textkit command yet: cli writes it, slugify does not.
    const template = (await controller.state(folder, runId))!;
    const tasks = [DEMO_PLAN.tasks.find((t) => t.id === 'cli')!, template.plan.tasks.find((t) => t.id === 'slugify')!].map((t) => ({ ...t, dependsOn: [] }));
    const pausedId = approvedRun(folder, { goal: CHECK_GOAL, tasks }, { ...template.config, gateCommands: [CHECK] });
    await controller.refresh(folder);
    await waitFor('the window to know the run', () => controller.state(folder, pausedId));
    pauseOnBase(folder, pausedId, git(folder, 'rev-parse', 'HEAD'), [command(CHECK, 1, undefined, { output: '' })]);
    await controller.refreshAll({ reloadStates: true });

    const notice = new Notification(`"${CHECK_GOAL}" paused`);
    await notice.shown(30_000);
    assert.match(await notice.message(), /`test -f bin\/textkit\.js` fails on main before any task changed anything/);
    assert.deepEqual(await notice.buttons(), ['Treat as Advisory', 'Keep as Required', 'Cancel Run']);
    const before = lastSeqOf(api, folder, pausedId);
    await allNotifications();
    await takeScreenshot('baseline-choice-required-notice');
    await notice.press('Keep as Required');
    const entry = await settled(api, folder, pausedId, before);
    const decisions = entry.state!.decisions.filter((d) => d.seq > before);
    assert.deepEqual(decisions.find((d) => d.fact.type === 'baseline_choice')?.fact, { type: 'baseline_choice', commands: [CHECK], choice: 'required' });
    assert.deepEqual(entry.state!.baseline?.required, [CHECK]);
    // Failing on main too excuses nothing: the task that wrote the file passes, the one that did not is held by the check.
    const gates = Object.fromEntries(
      decisions.flatMap((d) => (d.fact.type === 'gate_result' && d.taskId ? [[d.taskId, { passed: d.fact.passed, failed: d.fact.failed?.exitCode, advisory: d.fact.advisory }]] : [])),
    );
    assert.deepEqual(gates, { cli: { passed: true, failed: undefined, advisory: undefined }, slugify: { passed: false, failed: 1, advisory: undefined } });
    assert.equal(taskStates(entry).cli, 'MERGED');

    await vscode.commands.executeCommand('notifications.hideList');
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId: pausedId });
    await runView.gateNoteShown(`\`${CHECK}\` fails on main: kept as required, a check of work still to be done that the tasks must make pass`, 30_000);
    await takeScreenshot('baseline-choice-required');
  });
});

