import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { RUN_VIEW, runView } from './pages/runViewPage';
import { quickInput } from './pages/workbenchPage';
import { pressKey } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { lastSeqOf, settled, startGoalAwaitingApproval, taskloom, workspaceFolder } from './vscodeUtil';

const GOAL = 'Answer with three candidates';
const PLAN = {
  goal: GOAL,
  tasks: [{ id: 'answer', title: 'Answer', description: 'write the answer to answer.txt', acceptance: ['answer.txt names its candidate'], dependsOn: [], candidates: 3 }],
};
const write = (files: Record<string, string>) => ({ write: files, delayMs: 0 });
/** Candidate 1 breaks the demo's `node --test`, 2 and 3 pass, the critic picks 3; its review approves whatever goes on. */
const SCENARIO = {
  planner: [{ output: PLAN, text: 'Planned one task, three tries.' }],
  tasks: {
    answer: {
      candidates: [
        { actor: [write({ 'answer.txt': 'one\n', 'test/answer.test.js': "require('node:assert').fail('one is wrong');\n" })] },
        { actor: [write({ 'answer.txt': 'two\n' })] },
        { actor: [write({ 'answer.txt': 'three\n', 'notes.txt': 'three\n' })] },
      ],
      compare: [{ output: { pick: 3, reasons: 'Candidate 3 names itself and leaves a note.' }, delayMs: 0 }],
      critic: [{ verdict: { decision: 'green', summary: 'fine', findings: [] }, delayMs: 0 }],
    },
  },
};

/**
 * A task run as three candidates in the run view (issue 25, item 3), with the pick held for you
 * (`taskloom.candidates.confirmPick`): the cards side by side with their gates, files and the
 * critic's pick with its reasons and "Go On with the Pick"; "Choose This One" on candidate 2 makes
 * candidate 2's work the one that merges. Runs last in its session: it swaps the scenario file and
 * turns the hold on.
 */
suite('Candidates side by side in the run view', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  const scenarioPath = vscode.workspace.getConfiguration('taskloom', vscode.Uri.file(folder)).get<string>('scripted.scenario')!;
  const original = readFileSync(scenarioPath, 'utf8');
  const confirmPick = (on: boolean | undefined) => vscode.workspace.getConfiguration('taskloom').update('candidates.confirmPick', on, vscode.ConfigurationTarget.Workspace);
  suiteTeardown(async () => {
    writeFileSync(scenarioPath, original);
    await confirmPick(undefined);
  });

  test('shows the three candidates, the held pick and its reasons; Choose This One on another makes it the one that merges', async () => {
    writeFileSync(scenarioPath, JSON.stringify(SCENARIO));
    await confirmPick(true);
    const api = await taskloom();
    const planned = await startGoalAwaitingApproval(api, folder, GOAL, 1);
    const runId = planned.summary.runId;
    const approvedAt = lastSeqOf(api, folder, runId);
    await vscode.commands.executeCommand('taskloom.approvePlan', { folder, runId });
    const ended = await settled(api, folder, runId, approvedAt);
    const held = ended.state!.tasks.answer!;
    assert.equal(held.state, 'NEEDS_HUMAN', held.lastReason);
    assert.equal(held.lastReason, 'the critic picked candidate 3: go on with it, or choose another');

    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await runView.candidatesShown('answer');
    const cards = await runView.candidateCardTexts('answer');
    assert.equal(cards.length, 3);
    assert.match(cards[0]!, /Candidate 1.*gate failed: `npm test --silent` exited 1/s);
    assert.match(cards[1]!, /Candidate 2.*reachable until discard.*gate passed.*answer\.txt/s);
    assert.match(cards[2]!, /Candidate 3.*picked by the critic.*gate passed.*answer\.txt.*notes\.txt/s);
    assert.deepEqual(await runView.pickedCandidateReasons('answer'), ['Candidate 3 names itself and leaves a note.']);
    assert.deepEqual(await runView.candidateButtons('answer', 2), ['Choose This One', 'Diff']);
    assert.deepEqual(await runView.candidateButtons('answer', 3), ['Go On with the Pick', 'Diff']);
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
    await runView.themeShown('dark');
    await takeScreenshot('candidates-dark');
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Light Modern', vscode.ConfigurationTarget.Global);
    await runView.themeShown('light');
    await takeScreenshot('candidates-light');
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', undefined, vscode.ConfigurationTarget.Global);

    const chosenAt = lastSeqOf(api, folder, runId);
    await runView.click(RUN_VIEW.chooseCandidateButton('answer', 2));
    await quickInput.shown();
    await pressKey('Enter');
    const after = await settled(api, folder, runId, chosenAt);
    const answer = after.state!.tasks.answer!;
    assert.equal(answer.state, 'MERGED', answer.lastReason);
    assert.equal(answer.candidates?.picked?.by, 'person');
    assert.equal(answer.candidates?.picked?.candidate, 2);
    // What merged is candidate 2's work, as git has it on the integration branch.
    const merged = execFileSync('git', ['show', `${after.state!.integration.branch}:answer.txt`], { cwd: folder, encoding: 'utf8' });
    assert.equal(merged, 'two\n');
  });
});
