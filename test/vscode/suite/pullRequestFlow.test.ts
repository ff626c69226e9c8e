import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunsNode } from '../../../src/extension/tree/runsTreeProvider';
import { runView } from './pages/runViewPage';
import { quickInput } from './pages/workbenchPage';
import { pressKey, runPaletteCommand, runnerAvailable, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { EXTENSION_ID, newestRun, taskloom, waitFor, workspaceFolder } from './vscodeUtil';

/**
 * A completed run delivered from the editor against a scripted GitHub (test/vscode/fixtures/
 * pullRequestWorkspace.ts): Open Pull Request pushes it and opens the pull request; the window
 * then keeps it green, agents fixing CI's failing lint and the reviewer's requested change,
 * until it is approved, and keeps watching it until a person merges it. The pull request's row
 * and the run view say where it stands.
 */
/** A maintainer presses the scripted GitHub's merge button on pull request `number`. */
async function mergeAsMaintainer(number: number): Promise<void> {
  const apiUrl = vscode.workspace.getConfiguration('taskloom').inspect<string>('github.apiUrl')!.globalValue!;
  const merged = await fetch(`${apiUrl}/repos/octo/greeter/pulls/${number}/merge`, {
    method: 'PUT',
    headers: { authorization: `token ${process.env.GITHUB_TOKEN ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify({ merge_method: 'merge' }),
  });
  assert.equal(merged.status, 200, await merged.text());
}

suite('A pull request kept green from the editor', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();

  test('Open Pull Request, then the row shows checks, review and fixes as they happen; green, it is watched until merged', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    const entry = await waitFor('the completed run', () => {
      const e = newestRun(api, folder);
      return e?.summary.status === 'completed' ? e : undefined;
    });
    const ref = { folder, runId: entry.summary.runId };
    await vscode.commands.executeCommand('taskloom.openPullRequest', ref);

    const tree = api.services.runsTree;
    const prRow = async () => {
      const children = await tree.getChildren(tree.runNode(folder, ref.runId));
      const node = children.find((n: RunsNode) => n.kind === 'pullRequest');
      return node ? tree.getTreeItem(node) : undefined;
    };
    const opened = await waitFor('the pull request row', prRow);
    assert.equal(String(opened.label), 'PR #1', 'short: its state words fit the row');
    assert.equal(opened.command?.command, 'taskloom.openPullRequestInBrowser');

    // The window's watch: CI fails lint, an agent fixes it; alice asks for a change, the task's agent makes it; alice approves.
    const green = await waitFor(
      'the pull request to be green',
      async () => {
        const row = await prRow();
        return row && /^checks pass; approved; 2 fixes pushed$/.test(String(row.description)) ? row : undefined;
      },
      240_000,
    );
    assert.match(String(green.contextValue), /^pullRequest\.open/);
    // The repository's own .vscode/settings.json named a decoy GitHub; the setting is the user's only, so no token went there.
    assert.equal(vscode.workspace.getConfiguration('taskloom', vscode.Uri.file(folder)).get('github.apiUrl'), vscode.workspace.getConfiguration('taskloom').inspect('github.apiUrl')!.globalValue);
    assert.ok(!existsSync(join(folder, '.vscode', 'decoy-requests.log')), 'the decoy GitHub named by the workspace was asked');
    const state = api.services.controller.model.run(folder, ref.runId)!.state!;
    assert.equal(state.pullRequests['']!.watch, undefined, 'green is a state, not the end of the watch');
    assert.ok(api.services.pullRequestWatches.has(`${folder}\n${ref.runId}`), 'the window still watches the green pull request');
    assert.deepEqual(
      state.pullRequests['']!.reactions.map((r) => [r.kind, r.status, r.taskIds]),
      [
        ['check', 'pushed', [null]],
        ['review', 'pushed', ['exclaim']],
      ],
    );
    await tree.runNode(folder, ref.runId);
    await api.services.runsView.reveal(tree.runNode(folder, ref.runId), { expand: true });
    await takeScreenshot('pull-request-green-row');

    await vscode.commands.executeCommand('taskloom.showRun', ref);
    const header = await waitFor('the run view to show the pull request', async () => {
      const texts = await runView.pullRequestTexts().catch(() => []);
      return texts.find((t) => t.includes('Pull request #1'));
    });
    assert.match(header, /Pull request #1 open · checks pass; approved; 2 fixes pushed/);
    await takeScreenshot('pull-request-run-view');

    // A maintainer presses GitHub's merge button: the watch sees it merged and ends.
    await mergeAsMaintainer(1);
    await waitFor('the watch to end at the merge', () => (api.services.pullRequestWatches.has(`${folder}\n${ref.runId}`) ? undefined : true), 60_000);
    const after = api.services.controller.model.run(folder, ref.runId)!.state!;
    assert.equal(after.pullRequests['']!.watch?.outcome, 'merged');
    await waitFor('the merged row', async () => ((await prRow())?.contextValue === 'pullRequest.merged' ? true : undefined));
    await takeScreenshot('pull-request-merged');
  });

  test("Keep This Pull Request Green… from the palette asks for a pull request of one's own and keeps it green in a run of its own", async function () {
    if (!runnerAvailable()) this.skip();
    const api = await taskloom();
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: Array<{ command: string; category?: string }>; menus: { commandPalette: Array<{ command: string }> } } };
    assert.equal(manifest.contributes.commands.find((c) => c.command === 'taskloom.keepOwnPullRequestGreen')?.category, 'Taskloom');
    assert.ok(!manifest.contributes.menus.commandPalette.some((c) => c.command === 'taskloom.keepOwnPullRequestGreen'), 'not hidden from the palette');

    await runPaletteCommand('Taskloom: Keep This Pull Request Green…');
    await quickInput.shown();
    await takeScreenshot('keep-own-pull-request-green-asks');
    await typeText('2');
    await pressKey('Enter');
    const entry = await waitFor('the run that keeps pull request #2 green', () =>
      api.services.controller.model.runs(folder).find((e) => e.summary.goal === 'Keep pull request #2 green (ada/readme)'),
    );
    const runId = entry.summary.runId;
    // Ada's branch passes CI and alice approves it: green with nothing to fix, and still watched until it is merged.
    await waitFor(
      "Ada's pull request to be seen green",
      () => {
        const observed = api.services.controller.model.run(folder, runId)?.state?.pullRequests['']?.observed;
        return observed?.review === 'approved' && observed.checks.length > 0 && observed.checks.every((c) => c.status === 'success');
      },
      180_000,
    );
    const row = api.services.runsTree.getTreeItem(api.services.runsTree.runNode(folder, runId));
    assert.match(String(row.label), /^watching a pull request/);
    await api.services.runsView.reveal(api.services.runsTree.runNode(folder, runId), { expand: true });
    await takeScreenshot('keep-own-pull-request-green-row');
    await mergeAsMaintainer(2);
    await waitFor("the watch of Ada's pull request to end at its merge", () => api.services.controller.model.run(folder, runId)?.state?.pullRequests['']?.watch?.outcome === 'merged', 120_000);
    const tree = api.services.runsTree;
    await waitFor("Ada's pull request row to read merged", async () => {
      const node = (await tree.getChildren(tree.runNode(folder, runId))).find((n: RunsNode) => n.kind === 'pullRequest');
      return node && tree.getTreeItem(node).contextValue === 'pullRequest.merged' ? true : undefined;
    });
    await takeScreenshot('keep-own-pull-request-merged-row');
  });
});
