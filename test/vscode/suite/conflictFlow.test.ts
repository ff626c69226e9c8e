import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RESOLVED_INDEX } from '../fixtures/conflictScenario';
import { mergeEditor } from './pages/workbenchPage';
import { takeScreenshot } from './screenshot';
import { answeringConfirmations, lastSeqOf, newestRun, settled, taskloom, taskStates, waitFor, workspaceFolder } from './vscodeUtil';

/**
 * A merge conflict its agent could not resolve, handled where the user looks: the Needs You row
 * with Retry / Resolve by Hand / Skip, VS Code's merge editor on the conflicted file, Continue
 * merging the person's resolution, and, on a second run, Skip completing the rest.
 */
suite('A merge conflict that waits for you', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  const plan = join(folder, '..', 'plan.json');

  async function runUntilStuck(): Promise<{ runId: string; stuck: string }> {
    const api = await taskloom();
    const before = newestRun(api, folder)?.summary.runId;
    void vscode.commands.executeCommand('taskloom.startGoal', { folder, planFile: plan });
    const runId = await waitFor('the run to start', () => {
      const id = newestRun(api, folder)?.summary.runId;
      return id && id !== before ? id : undefined;
    });
    // Settled, and past the plan's approval (autopilot): the run stopped with something for a person.
    const entry = await waitFor('the run to stop for a person', () => {
      const e = api.services.controller.model.run(folder, runId);
      return e?.state && !e.summary.active && e.summary.status === 'needs_human' ? e : undefined;
    }, 180_000);
    const stuck = Object.entries(taskStates(entry)).find(([, state]) => state === 'NEEDS_HUMAN')?.[0];
    assert.ok(stuck, `one of trim and pad waits for a person: ${JSON.stringify(taskStates(entry))}`);
    assert.equal(entry.state!.tasks[stuck]!.queueProblem?.kind, 'conflict');
    return { runId, stuck };
  }

  test('the Needs You row names the conflict and carries Retry, Resolve by Hand and Skip', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    const { runId, stuck } = await runUntilStuck();
    const needsYou = api.services.needsYou;
    const item = await waitFor('the conflict in Needs You', () => needsYou.getChildren().find((i) => i.kind === 'conflict' && i.runId === runId));
    const row = needsYou.getTreeItem(item);
    assert.equal(String(row.label), `Merge conflict: ${stuck}`);
    assert.match(String(row.description), /in index\.js/);
    for (const action of ['can-retry', 'can-resolve', 'can-skip']) assert.match(String(row.contextValue), new RegExp(`\\.${action}`), action);
    assert.doesNotMatch(String(row.contextValue), /can-accept/);
    await takeScreenshot('needs-you-conflict');
  });

  test('Resolve by Hand opens the merge editor on the conflicted file; Continue merges the resolution and the run completes', async () => {
    const api = await taskloom();
    const entry = newestRun(api, folder)!;
    const runId = entry.summary.runId;
    const stuck = Object.entries(taskStates(entry)).find(([, state]) => state === 'NEEDS_HUMAN')![0];
    void vscode.commands.executeCommand('taskloom.resolveTask', { folder, runId, taskId: stuck });
    // A merge editor's tab input (TabInputTextMerge, not in @types/vscode 1.100) has the three sides and the result.
    const tab = await waitFor('the merge editor', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { base?: vscode.Uri; input1?: vscode.Uri; result?: vscode.Uri } | undefined;
      return input?.base && input.input1 && input.result ? (input as { result: vscode.Uri; input1: vscode.Uri }) : undefined;
    });
    const worktree = api.services.controller.model.run(folder, runId)!.state!.tasks[stuck]!.worktreePath!;
    assert.equal(tab.result.fsPath, join(worktree, 'index.js'));
    assert.equal(tab.input1.scheme, 'taskloom-diff', "the task's side is read from git");
    await waitFor('the task to wait for the person', () => taskStates(api.services.controller.model.run(folder, runId)!)[stuck] === 'HUMAN_RESOLVING');
    // The run waits for the person, it was not interrupted: its row says so, not "stopped".
    const { runsTree } = api.services;
    const runRow = runsTree.getTreeItem(runsTree.runNode(folder, runId));
    assert.match(String(runRow.label), /^needs you · \d\/3$/);
    // Both sides drawn: the task's helper on one input, the other task's on the other.
    await mergeEditor.inputSaying('function trim');
    await mergeEditor.inputSaying('function pad');
    await takeScreenshot('merge-editor');
    // The person resolves it (what Accept Both and an edit would leave) and saves.
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    writeFileSync(join(worktree, 'index.js'), RESOLVED_INDEX);
    const beforeContinue = lastSeqOf(api, folder, runId);
    await vscode.commands.executeCommand('taskloom.continueTask', { folder, runId, taskId: stuck });
    const done = await settled(api, folder, runId, beforeContinue);
    assert.equal(done.summary.status, 'completed');
    assert.deepEqual(taskStates(done), { trim: 'MERGED', pad: 'MERGED', shout: 'MERGED' });
    assert.equal(done.summary.merged, 3);
  });

  test('Skip drops the conflicting task (and what depends on it) and the rest completes', async () => {
    const api = await taskloom();
    const { runId, stuck } = await runUntilStuck();
    const beforeSkip = lastSeqOf(api, folder, runId);
    const asked = await answeringConfirmations(api, 'Skip', () => vscode.commands.executeCommand('taskloom.skipTask', { folder, runId, taskId: stuck }));
    assert.equal(asked.length, 1, 'Skip asked first');
    const done = await settled(api, folder, runId, beforeSkip);
    assert.equal(done.summary.status, 'completed');
    const states = taskStates(done);
    assert.equal(states[stuck], 'SKIPPED');
    assert.equal(states.shout, stuck === 'pad' ? 'SKIPPED' : 'MERGED');
    assert.equal(api.services.needsYou.getChildren().filter((i) => i.runId === runId).length, 0, 'nothing of this run waits for you');
  });
});
