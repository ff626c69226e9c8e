import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { takeScreenshot } from './screenshot';
import { lastSeqOf, settled, startGoalAwaitingApproval, taskloom, taskStates, waitFor, workspaceFolder } from './vscodeUtil';

const GOAL = 'Grow textkit, with one task taken over';

/**
 * Take over and hand back (issue 28, item 2) on the demo project with the scripted agent: `flaky`,
 * whose agent always fails, waits for you; Take Over opens a terminal named after it in its
 * worktree, running `taskloom take-over` (a shell there, as the scripted agent has no session of
 * its own, confined as the agent was); what the person writes in it is handed back, gated and
 * reviewed, and merges.
 */
suite('Take over a task in a terminal, and hand it back', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();

  test('Take Over opens a terminal in the task’s worktree running its session; Hand Back gates and merges what the person wrote', async () => {
    const api = await taskloom();
    const { controller } = api.services;
    const planned = await startGoalAwaitingApproval(api, folder, GOAL);
    const runId = planned.summary.runId;
    const approvedAt = lastSeqOf(api, folder, runId);
    await vscode.commands.executeCommand('taskloom.approvePlan', { folder, runId });
    const ended = await settled(api, folder, runId, approvedAt);
    assert.equal(taskStates(ended).flaky, 'NEEDS_HUMAN');
    const worktree = ended.state!.tasks.flaky!.worktreePath!;

    await vscode.commands.executeCommand('taskloom.takeOverTask', { folder, runId, taskId: 'flaky' });
    const terminal = await waitFor('a terminal named after the task', () => vscode.window.terminals.find((t) => t.name === 'Taskloom: flaky'));
    const options = terminal.creationOptions as vscode.TerminalOptions;
    assert.equal(String(options.cwd), worktree);
    assert.deepEqual(options.shellArgs, [join(api.services.context.extensionUri.fsPath, 'dist', 'cli.js'), 'take-over', 'flaky', '--run', runId, '--cwd', folder]);
    await waitFor('the task to read taken over', () => controller.model.run(folder, runId)?.state?.tasks.flaky?.lastReason === 'taken over by you');
    const task = controller.model.run(folder, runId)!.state!.tasks.flaky!;
    assert.equal(task.state, 'NEEDS_HUMAN');
    assert.equal(task.withPerson, 'taken_over');
    // The person works in the session (a shell: the scripted agent has none), then leaves it.
    await waitFor('the session to open', async () => (await terminal.processId) !== undefined);
    terminal.sendText('echo "a report, by hand" > report.txt');
    await waitFor('the person’s file in the worktree', () => existsSync(join(worktree, 'report.txt')), 60_000);
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await takeScreenshot('take-over-terminal');
    terminal.sendText('exit');
    await waitFor('the session to end', () => terminal.exitStatus !== undefined, 60_000);

    const handedAt = lastSeqOf(api, folder, runId);
    await vscode.commands.executeCommand('taskloom.handBackTask', { folder, runId, taskId: 'flaky' });
    const after = await settled(api, folder, runId, handedAt);
    const flaky = after.state!.tasks.flaky!;
    assert.equal(flaky.state, 'MERGED', flaky.lastReason);
    const events = flaky.transitions.filter((t) => t.seq > handedAt).map((t) => t.event);
    for (const step of ['HANDED_BACK', 'BUILD_FINISHED', 'MECHANICAL_PASSED', 'CRITIC_GREEN', 'MERGE_VERIFIED']) assert.ok(events.includes(step as never), `${step} in ${events.join(', ')}`);
    assert.ok(flaky.changedFiles.includes('report.txt'), 'what the person wrote is the task’s work');
    terminal.dispose();
  });
});
