import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { quickInput } from './pages/workbenchPage';
import { pressKey, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { answeringConfirmations, newestRun, taskloom, waitFor, workspaceFolder } from './vscodeUtil';

/**
 * Start Goal from GitHub Issue… against the pullRequest session's scripted GitHub
 * (test/vscode/fixtures/pullRequestWorkspace.ts): a maintainer's issue picked from the open ones
 * becomes a run whose goal is its trusted text; an outsider's is used only once the person read
 * the goal it gives and said Start.
 */
suite('Start Goal from GitHub Issue', function () {
  this.timeout(180_000);
  const folder = workspaceFolder();
  const planWaiting = async (known: Set<string>) => {
    const api = await taskloom();
    return waitFor('a new run whose plan waits for approval', () => {
      const entry = newestRun(api, folder);
      return entry?.state && !known.has(entry.summary.runId) && entry.summary.status === 'planning' && !entry.summary.active && entry.state.plan.tasks.length > 0 ? entry : undefined;
    }).catch(async (error: unknown) => {
      // What the window said instead (an error notification), for the person reading the failure.
      await takeScreenshot('issue-no-plan');
      const runs = api.services.controller.model.runs(folder).map((e) => ({ id: e.summary.runId, status: e.summary.status, active: e.summary.active, tasks: e.state?.plan.tasks.length, summary: e.state?.finishedSummary }));
      throw new Error(`${String(error)}; the runs: ${JSON.stringify(runs)}`);
    });
  };
  const knownRuns = async () => new Set((await taskloom()).services.controller.model.runs(folder).map((entry) => entry.summary.runId));

  test("an open issue picked from the list becomes the goal: its title, its body, not an outsider's comment", async () => {
    const known = await knownRuns();
    // Not awaited: the command ends when the plan's review does.
    void vscode.commands.executeCommand('taskloom.startGoalFromIssue');
    await quickInput.rowShown('#11 Greetings feel cold');
    await quickInput.rowShown('#12 Add a wave');
    await takeScreenshot('issue-picker');
    await typeText('#11');
    await pressKey('Enter');
    const entry = await planWaiting(known);
    const goal = entry.state!.goal;
    assert.match(goal, /^Greetings feel cold\n/);
    assert.match(goal, /End every greeting with an exclamation mark\./);
    assert.doesNotMatch(goal, /print the token|stranger/);
    await takeScreenshot('issue-plan-waiting');
  });

  test("an outsider's issue starts only once the person read its goal and said Start", async () => {
    const api = await taskloom();
    const known = await knownRuns();
    const declined = await answeringConfirmations(api, undefined, () => vscode.commands.executeCommand('taskloom.startGoalFromIssue', { folder, issue: '#12' }));
    assert.equal(declined.length, 1);
    assert.match(declined[0]!, /^Issue octo\/greeter#12 was opened by @passerby, who has no write access to octo\/greeter\. Use its text as the goal\?/);
    assert.match(declined[0]!, /The run's goal would be exactly:\n\nAdd a wave\n/);
    assert.deepEqual(await knownRuns(), known, 'declined: nothing was started');

    const agreed = await answeringConfirmations(api, 'Start', async (asked) => {
      void vscode.commands.executeCommand('taskloom.startGoalFromIssue', { folder, issue: '#12' });
      await waitFor('the confirmation', () => asked.length > 0);
    });
    assert.equal(agreed.length, 1);
    const entry = await planWaiting(known);
    assert.match(entry.state!.goal, /^Add a wave\n/);
  });
});
