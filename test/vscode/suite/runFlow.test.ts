import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { SUITE_GOAL } from '../fixtures/scenario';
import { click, readTexts, waitFor as waitForPage, WEBVIEW_FRAMES } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { newestRun, settled, taskloom, taskStates, waitFor, workspaceFolder } from './vscodeUtil';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * The whole user journey on a fixture repository with the scripted agent: Start Goal → plan
 * approval → tasks run → three need the human → Retry / Accept / Skip → completed → run
 * view, diffs, and Apply Integration onto the user's branch.
 */
suite('A run from Start Goal to the applied integration', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  let runId = '';

  test('plans the goal and waits for approval, then runs after Approve', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('workbench.view.extension.taskloom');
    void vscode.commands.executeCommand('taskloom.startGoal', { folder, goal: SUITE_GOAL });
    const planned = await waitFor('the plan to wait for approval', () => {
      const entry = newestRun(api, folder);
      return entry?.state && entry.summary.status === 'planning' && !entry.summary.active && entry.state.plan.tasks.length === 5 ? entry : undefined;
    });
    runId = planned.summary.runId;
    await takeScreenshot('plan-approval');
    await vscode.commands.executeCommand('taskloom.approvePlan', { folder, runId });
    const entry = await settled(api, folder, runId);
    assert.deepEqual(taskStates(entry), {
      slugify: 'MERGED',
      'word-count': 'NEEDS_HUMAN',
      'title-case': 'NEEDS_HUMAN',
      summary: 'SKIPPED',
      flaky: 'NEEDS_HUMAN',
    });
    assert.equal(entry.summary.status, 'needs_human');
    // The end says what waits for whom, with the way there.
    const stopped = '.notification-list-item:has-text("stopped —")';
    await waitForPage({ selector: stopped, timeoutMs: 30_000 });
    const [message] = await readTexts({ selector: `${stopped} .notification-list-item-message` });
    assert.match(message ?? '', /^Taskloom: ".+" stopped — 1\/5 done; word-count, title-case and flaky need you\.$/);
    assert.deepEqual(await readTexts({ selector: `${stopped} a.monaco-button` }), ['Show Needs You', 'Show Run']);
  });

  test('shows the tasks in the Runs tree with their states, and the Needs You items', async () => {
    const api = await taskloom();
    const { runsTree } = api.services;
    const [runNode] = await runsTree.getChildren();
    assert.ok(runNode, 'the run is in the tree');
    const runItem = runsTree.getTreeItem(runNode);
    assert.match(String(runItem.description), /^needs you · 1\/5 · \d\d:\d\d( · .+)?$/);
    const tasks = await runsTree.getChildren(runNode);
    const items = tasks.map((t) => runsTree.getTreeItem(t));
    const byId = Object.fromEntries(items.map((i) => [String(i.label).split(':')[0], i]));
    assert.equal(byId['word-count']!.contextValue, 'task.NEEDS_HUMAN.hasBranch.hasWorktree.can-retry.can-accept.can-skip');
    assert.equal((byId.slugify!.iconPath as vscode.ThemeIcon).id, 'pass-filled');
    assert.equal((byId['word-count']!.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.match(String(byId['word-count']!.description), /needs you · (⚠ overlaps slugify · )?attempt 1/);
    // Agent text with HTML and terminal escapes is shown as plain text.
    assert.equal(String(byId.flaky!.label), 'flaky: Add an <b>HTML</b> report (red)');
    await api.services.runsView.reveal(tasks[1]!, { expand: true, focus: false, select: true });
    await takeScreenshot('tree-needs-human');
  });

  test('Retry, Accept and Skip move the tasks on, and the run completes', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('taskloom.retryTask', { folder, runId, taskId: 'word-count' }, { note: 'split on any whitespace' });
    let entry = await settled(api, folder, runId);
    assert.equal(taskStates(entry)['word-count'], 'MERGED');
    assert.match(entry.state!.tasks['word-count']!.humanNote ?? '', /whitespace/);

    await vscode.commands.executeCommand('taskloom.acceptTask', { folder, runId, taskId: 'title-case' }, { confirmed: true });
    entry = await settled(api, folder, runId);
    assert.equal(taskStates(entry)['title-case'], 'MERGED');
    assert.equal(taskStates(entry).summary, 'MERGED', 'summary ran once both dependencies were merged');

    await vscode.commands.executeCommand('taskloom.skipTask', { folder, runId, taskId: 'flaky' }, { confirmed: true });
    entry = await settled(api, folder, runId);
    assert.equal(taskStates(entry).flaky, 'SKIPPED');
    assert.equal(entry.summary.status, 'completed');
    assert.equal(entry.state!.integration.merged.length, 4);
    // The progress toast does not just vanish: the end is said, with the next step a button away.
    const ended = '.notification-list-item:has-text("completed —")';
    await waitForPage({ selector: ended, timeoutMs: 30_000 });
    const [message] = await readTexts({ selector: `${ended} .notification-list-item-message` });
    assert.match(message ?? '', /^Taskloom: ".+" completed — 5\/5 done, integration gate passed\.$/);
    assert.deepEqual(await readTexts({ selector: `${ended} a.monaco-button` }), ['Review Diff', 'Apply…', 'Open Pull Request']);
    await takeScreenshot('tree-completed');
  });

  test('the run view receives the run: decisions, timeline and usage', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    const entry = api.services.controller.model.run(folder, runId)!;
    const panel = await waitFor('the run view to draw the run', () =>
      api.RunViewPanel.panels().find((p) => p.runId === runId && p.lastRenderedSeq === entry.state!.lastSeq),
    );
    assert.ok(panel.panel.visible);
    const theme = (name: string) => vscode.workspace.getConfiguration('workbench').update('colorTheme', name, vscode.ConfigurationTarget.Global);
    const settle = () => new Promise((r) => setTimeout(r, 1500));
    await theme('Default Dark Modern');
    await settle();
    await takeScreenshot('run-view-dark');
    // A planner's title with markup and terminal escapes is drawn as text, not made into elements.
    const labels = await readTexts({ selector: 'svg.graph text', frames: WEBVIEW_FRAMES });
    assert.ok(labels.some((text) => text.startsWith('Add an <b>HTML</b> report')), `the graph shows the title literally (${labels.join(' | ')})`);
    assert.ok(!labels.some((text) => text.includes('\u001b')), 'no terminal escapes reach the view');
    await click({ selector: 'vscode-tab-header[data-tab="ledger"]', frames: WEBVIEW_FRAMES });
    await theme('Default Light Modern');
    await settle();
    await takeScreenshot('run-view-light-ledger');
    await click({ selector: 'vscode-tab-header[data-tab="timeline"]', frames: WEBVIEW_FRAMES });
    await theme('Default High Contrast');
    await settle();
    await takeScreenshot('run-view-high-contrast-timeline');
    await click({ selector: 'vscode-tab-header[data-tab="usage"]', frames: WEBVIEW_FRAMES });
    await theme('Default Dark Modern');
    await settle();
    await takeScreenshot('run-view-dark-usage');
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  test('Show Task Diff opens the task’s changes in the diff editor', async () => {
    await vscode.commands.executeCommand('taskloom.showTaskDiff', { folder, runId, taskId: 'slugify' });
    // Two files changed: VS Code's multi-file diff editor opens, reading both sides through Taskloom.
    const tab = await waitFor('the diff editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label.includes('Taskloom slugify') && vscode.window.tabGroups.activeTabGroup.activeTab);
    assert.ok(tab);
    const modified = await waitFor('the changed file read at the task branch', () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'taskloom-git' && d.uri.path.endsWith('src/slugify.js') && d.getText().length > 0),
    );
    assert.match(modified.getText(), /slugify/);
    await takeScreenshot('task-diff');
  });

  test('Apply Integration refuses a dirty tree, then merges the green work into the branch', async () => {
    const before = git(folder, 'rev-parse', 'HEAD');
    const dirty = join(folder, 'README.md');
    const original = await vscode.workspace.fs.readFile(vscode.Uri.file(dirty));
    await vscode.workspace.fs.writeFile(vscode.Uri.file(dirty), Buffer.from('uncommitted edit\n'));
    await vscode.commands.executeCommand('taskloom.applyIntegration', { folder, runId }, { confirmed: true });
    assert.equal(git(folder, 'rev-parse', 'HEAD'), before, 'nothing was merged into a dirty tree');
    await vscode.workspace.fs.writeFile(vscode.Uri.file(dirty), original);

    await vscode.commands.executeCommand('taskloom.applyIntegration', { folder, runId }, { confirmed: true });
    await waitFor('the branch to move', () => git(folder, 'rev-parse', 'HEAD') !== before);
    assert.equal(git(folder, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
    for (const file of ['src/slugify.js', 'src/wordCount.js', 'src/titleCase.js', 'src/summary.js']) {
      assert.ok(existsSync(join(folder, file)), `${file} is on the user's branch`);
    }
    assert.equal(git(folder, 'status', '--porcelain', '--untracked-files=no'), '');
  });

  test('a completed run leaves no critic findings in the Problems panel', async () => {
    // Its findings were shown while it needed you (the problems session shows them); decided and done, they go.
    await waitFor('the findings to go', () => !vscode.languages.getDiagnostics().some(([, list]) => list.some((d) => String(d.source).startsWith('Taskloom critic'))));
  });
});
