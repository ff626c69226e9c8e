import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { SLOW_ACTOR_SAYS, TRANSCRIPT_PLAN_FILE } from '../fixtures/transcriptScenario';
import { runView } from './pages/runViewPage';
import { workbench } from './pages/workbenchPage';
import { reloadWindow, testPhase } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { newestRun, settled, taskloom, taskStates, waitFor, workspaceFolder } from './vscodeUtil';


/**
 * A task whose scripted actor works for ~18 s, saying what it does every couple of seconds:
 * the run view's Transcript tab and the task's row in the Runs tree follow it while it works;
 * after a window reload the run view shows the same transcript, read back from the log.
 */
const STEERING_MESSAGE = 'Please keep the farewell short';

suite('Agent transcripts', function () {
  this.timeout(240_000);
  const folder = workspaceFolder();

  if (testPhase() === 1) {
    test('stream into the run view and the task row while the step runs', async () => {
      const api = await taskloom();
      const { controller, runsTree, runsView } = api.services;
      await vscode.commands.executeCommand('workbench.view.extension.taskloom');
      void vscode.commands.executeCommand('taskloom.startGoal', { folder, planFile: join(folder, '..', TRANSCRIPT_PLAN_FILE) });
      const building = await waitFor('the slow task to start building', () => {
        const entry = newestRun(api, folder);
        return entry?.state?.tasks.farewell?.state === 'BUILDING' && entry.summary.active ? entry : undefined;
      });
      const runId = building.summary.runId;
      const task = () => controller.model.run(folder, runId)!.state!.tasks.farewell!;
      const taskNode = runsTree.taskNode(folder, runId, 'farewell');
      await runsView.reveal(taskNode, { select: true, focus: false, expand: false });

      await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
      await runView.showTab('transcript');
      // The first lines are in the view while the actor is still at work…
      await runView.transcriptLineShown(SLOW_ACTOR_SAYS[1]!);
      assert.equal(task().state, 'BUILDING', 'the step is still running');
      // …and the task's row ends with the newest one.
      const row = await waitFor('the task row to show a line of the transcript', () => {
        const description = String(runsTree.getTreeItem(taskNode).description ?? '');
        return SLOW_ACTOR_SAYS.some((said) => description.endsWith(` — ${said}`)) && description;
      });
      assert.match(row, /^building · attempt 1 · .+ — /);

      // A later line arrives in both, still during the step.
      const later = SLOW_ACTOR_SAYS[4]!;
      await runView.transcriptLineShown(later);
      assert.equal(task().state, 'BUILDING', 'still the same step');
      await waitFor('the row to follow', () => String(runsTree.getTreeItem(taskNode).description).endsWith(` — ${later}`) || String(runsTree.getTreeItem(taskNode).description).endsWith(` — ${SLOW_ACTOR_SAYS[5]}`));
      const shown = await runView.transcriptLines();
      assert.deepEqual(
        shown.filter((text) => SLOW_ACTOR_SAYS.includes(text)),
        SLOW_ACTOR_SAYS.slice(0, SLOW_ACTOR_SAYS.indexOf(shown.filter((t) => SLOW_ACTOR_SAYS.includes(t)).at(-1)!) + 1),
        'the lines in the order the agent said them',
      );
      const treeRows = await workbench.treeRowDescriptions();
      assert.ok(treeRows.some((text) => SLOW_ACTOR_SAYS.some((said) => text.includes(said))), `the Runs view shows the line (${treeRows.join(' | ')})`);
      // The side bar wide enough for the picture to show the row's end, where the line is: the run view gives up the room.
      await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
      for (let i = 0; i < 9; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewWidth');
      await takeScreenshot('transcript-live');

      // A message typed under the transcript while the actor works: the scripted agent cannot take it
      // mid-turn, so it waits, and the approved attempt goes back to the actor for it.
      // The run's progress toast sits over the box's corner, as it would for a person, who closes it.
      await vscode.commands.executeCommand('notifications.hideToasts');
      await runView.sendMessage(STEERING_MESSAGE);
      assert.match((await runView.messageBoxReason()).join(' '), /^Sent to farewell/);
      const delivered = await waitFor('the message to go into the next attempt’s prompt', async () =>
        (await runView.transcriptLines()).find((line) => line.startsWith('message from ') && line.endsWith(` went into the prompt of attempt 2: “${STEERING_MESSAGE}”`)),
      );
      await takeScreenshot('transcript-message-delivered');
      const told = controller.model.run(folder, runId)!.state!.tasks.farewell!;
      assert.deepEqual(told.messages.map((m) => [m.text, m.delivered?.how, m.delivered?.attempt]), [[STEERING_MESSAGE, 'next_turn', 2]], `${delivered}: recorded once, and delivered`);

      const entry = await settled(api, folder, runId);
      assert.deepEqual(taskStates(entry), { farewell: 'MERGED', docs: 'MERGED' });
      assert.ok(!String(runsTree.getTreeItem(taskNode).description).includes(' — '), 'a finished task row shows no agent line');
      await runView.messageBoxDisabledShown();
      // The view follows the latest activity, the docs task's by now: merged too.
      assert.match((await runView.messageBoxReason()).join(' '), /^No messages for (farewell|docs): it is merged: its actor takes no more turns\.$/);
      await reloadWindow();
    });
    return;
  }

  test('after a reload the run view shows the transcript again, read from the log', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    await waitFor('the run listed', () => newestRun(api, folder));
    const runId = newestRun(api, folder)!.summary.runId;
    // A restored run view may already be open (it remembers its tab); show it and pick the task.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await runView.showTab('transcript');
    await runView.transcriptTaskPickerShown();
    await api.services.controller.state(folder, runId);
    // The latest activity is the docs task's; the slow task is one pick away.
    await runView.pickTranscriptTask(':farewell');
    for (const said of SLOW_ACTOR_SAYS) await runView.transcriptLineShown(said);
    const heads = await runView.transcriptCallHeads();
    assert.deepEqual(heads.slice(0, 2), ['actor · attempt 2', 'critic · review 2'], `the last attempt’s calls, in order (${heads.join(' | ')})`);
    // Each attempt is headed by how it ended, a whole phrase: the first sent back for the message typed in phase 1.
    const [last, first] = await runView.transcriptGroupTitles();
    assert.match(last ?? '', /^Attempt 2 — approved \(critic: .+\)$/);
    assert.match(first ?? '', /^Attempt 1 — changes required \(a message from .+\)$/);
    await takeScreenshot('transcript-after-reload');
  });
});
