import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { SUITE_GOAL } from '../fixtures/scenario';
import type { RunEvent } from '../../../src/engine/domain/events';
import { wordDecision } from '../../../src/engine/text/decisionWords';
import { PHASE_LOOK } from '../../../src/webview/runView/timelineLayout';
import { commandLineIn } from '../../helpers/commandLines';
import { RUN_VIEW, runView } from './pages/runViewPage';
import { Notification, quickInput, workbench } from './pages/workbenchPage';
import { pressKey, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { watchRunViews } from './runViewWatch';
import { answeringConfirmations, lastSeqOf, settled, taskloom, taskStates, waitFor, workspaceFolder, startGoalAwaitingApproval } from './vscodeUtil';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const setTheme = (name: string | undefined) => vscode.workspace.getConfiguration('workbench').update('colorTheme', name, vscode.ConfigurationTarget.Global);
/** Switches the colour theme and waits until the run view is drawn in it (for its screenshot). */
async function showTheme(name: string, kind: 'light' | 'dark' | 'high-contrast'): Promise<void> {
  await setTheme(name);
  await runView.themeShown(kind);
}
/**
 * Clicks a run view button whose command asks a modal confirmation, answers `action` to it in
 * the user's place (through the test API), and checks the question put was `question`.
 */
async function clickConfirming(selector: string, action: string, question: string): Promise<string> {
  const api = await taskloom();
  const asked = await answeringConfirmations(api, action, async (soFar) => {
    await runView.click(selector);
    await waitFor(`the ${action} confirmation`, () => soFar.length > 0);
  });
  assert.equal(asked.length, 1, `one confirmation: ${asked.join(' | ')}`);
  assert.ok(asked[0]!.startsWith(question), asked[0]);
  return asked[0]!;
}

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
    const planned = await startGoalAwaitingApproval(api, folder, SUITE_GOAL);
    runId = planned.summary.runId;
    // The run view is where the plan is approved: its graph, and Approve / Edit / Cancel above it.
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    await waitFor('the run view to draw the plan', () => watchRunViews(api).drawn(runId));
    await runView.planShown();
    await takeScreenshot('plan-approval');
    assert.deepEqual(await runView.planButtons(), ['Approve', 'Edit Plan', 'Cancel Run']);
    assert.equal((await runView.graphTaskIds()).length, 5, 'the graph of the plan is the approval view');
    // The header says what the tree says: the plan waits for you; nothing was interrupted.
    await runView.statusShown('plan awaits your approval');
    assert.deepEqual(await runView.runNotes(), [], 'no note that the run went away');
    for (const [name, kind] of [['Default Light Modern', 'light'], ['Default High Contrast', 'high-contrast'], ['Default Dark Modern', 'dark']] as const) {
      await showTheme(name, kind);
      await takeScreenshot(`plan-waiting-run-view-${kind}`);
    }
    await setTheme(undefined);
    await runView.click(RUN_VIEW.approvePlanButton);
    await waitFor('the plan to be approved', () => api.services.controller.model.run(folder, runId)?.state?.planApproved);
    await runView.planGone();
    const entry = await settled(api, folder, runId);
    assert.deepEqual(taskStates(entry), {
      slugify: 'MERGED',
      'word-count': 'NEEDS_HUMAN',
      'title-case': 'NEEDS_HUMAN',
      summary: 'SKIPPED',
      flaky: 'NEEDS_HUMAN',
    });
    assert.equal(entry.summary.status, 'needs_human');
    // The end says what waits for whom where it stays true as you decide: the status bar (and Needs
    // You), not a toast that the next decision would leave outdated beside the next one.
    await workbench.statusBarSaying('Taskloom 1/5 · 3 need you');
    assert.deepEqual(await new Notification('stopped —').all(), [], 'no "stopped" toast');
  });

  test('shows the tasks in the Runs tree with their states, and the Needs You items', async () => {
    const api = await taskloom();
    const { runsTree } = api.services;
    const [runNode] = await runsTree.getChildren();
    assert.ok(runNode, 'the run is in the tree');
    const runItem = runsTree.getTreeItem(runNode);
    // Status first, then the goal: at the side bar's default width the status shows whole and the
    // goal as far as it fits; the tooltip has the goal in full and when the run started.
    assert.equal(runItem.label, 'needs you · 1/5');
    assert.equal(runItem.description, SUITE_GOAL);
    const tooltip = (runItem.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ');
    assert.ok(tooltip.includes(SUITE_GOAL), tooltip);
    assert.match(tooltip, /started \d\d:\d\d/);
    const shown = await workbench.treeRowShown('needs you · 1/5');
    assert.equal(shown.name?.shown, 1, `the status is not cut (${JSON.stringify(shown)}; rows: ${(await workbench.treeRowLabels()).join(' | ')})`);
    const goalChars = Math.floor((shown.description?.shown ?? 0) * SUITE_GOAL.length);
    console.log(`[taskloom-test] the run row shows its status whole and ${goalChars} of the goal's ${SUITE_GOAL.length} characters`);
    assert.ok(goalChars >= 10, `the goal shows too (${goalChars} characters)`);
    const tasks = await runsTree.getChildren(runNode);
    const items = tasks.map((t) => runsTree.getTreeItem(t));
    const byId = Object.fromEntries(items.map((i) => [String(i.label).split(':')[0], i]));
    assert.equal(byId['word-count']!.contextValue, 'task.NEEDS_HUMAN.can-retry.can-accept.can-skip.can-takeOver.can-diff.can-openWorktree');
    assert.equal((byId.slugify!.iconPath as vscode.ThemeIcon).id, 'pass-filled');
    assert.equal((byId['word-count']!.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.match(String(byId['word-count']!.description), /needs you · (⚠ overlaps slugify · )?attempt 1/);
    // Agent text with HTML and terminal escapes is shown as plain text.
    assert.equal(String(byId.flaky!.label), 'flaky: Add an <b>HTML</b> report (red)');
    await api.services.runsView.reveal(tasks[1]!, { expand: true, focus: false, select: true });
    await takeScreenshot('tree-needs-human');
  });

  test('a Needs You task opens the run view on that task', async () => {
    const api = await taskloom();
    const views = watchRunViews(api);
    const panel = views.panel(runId)!;
    // Another section and another editor are in front: the link must still land.
    await runView.showTab('usage');
    await vscode.window.showTextDocument(vscode.Uri.file(join(folder, 'README.md')));
    const item = api.services.needsYou.getChildren().find((i) => i.kind === 'task' && i.runId === runId && i.taskId === 'flaky');
    assert.ok(item, 'flaky is in Needs You');
    const { command } = api.services.needsYou.getTreeItem(item);
    views.of(panel).lastFocused = undefined;
    await vscode.commands.executeCommand(command!.command, ...(command!.arguments ?? []));
    const landed = await waitFor('the run view to land on flaky', () => views.of(panel).lastFocused);
    assert.deepEqual(landed, { found: true, taskId: 'flaky' });
    await waitFor('the run view in front', () => panel.panel.active);
    await runView.selectedNodeShown();
    assert.deepEqual(await runView.selectedTaskLinks(), ['flaky']);
    // Its actor failed before changing a file: there is no work to accept.
    assert.deepEqual(await runView.selectedTaskButtons(), ['Retry…', 'Skip…', 'Take Over', 'Diff']);
    await takeScreenshot('run-view-needs-you-task');
  });

  test('the ledger offers Restore on the snapshots of tasks that wait for you; no word in the view or a notification is a command line', async () => {
    await runView.showTab('ledger');
    await runView.restoreShown('flaky');
    for (const taskId of ['word-count', 'title-case']) assert.ok((await runView.restoreCount(taskId)) >= 1, `${taskId} waits for you: Restore is offered`);
    assert.equal(await runView.restoreCount('slugify'), 0, 'a merged task’s worktree is not yours to change');
    await clickConfirming(RUN_VIEW.restoreButton('flaky'), 'Restore', 'Put back the worktree of "flaky" as it was before attempt 1?');
    await new Notification('the worktree of "flaky"').shown();
    const words = `${await runView.allText()}\n${(await workbench.notificationTexts()).join('\n')}`;
    assert.equal(commandLineIn(words), undefined);
    await takeScreenshot('run-view-ledger-restore');
  });

  test('Retry, Accept and Skip from the run view’s buttons move the tasks on, and the run completes', async () => {
    const api = await taskloom();
    // The same commands as the tree's inline actions: Retry asks for a note, Accept and Skip confirm.
    const beforeRetry = lastSeqOf(api, folder, runId);
    await runView.click(RUN_VIEW.taskButton('word-count', 'retry'));
    await quickInput.shown();
    await typeText('split on any whitespace');
    await pressKey('Enter');
    await waitFor('word-count to merge', () => taskStates(api.services.controller.model.run(folder, runId)!)['word-count'] === 'MERGED');
    let entry = await settled(api, folder, runId, beforeRetry);
    assert.match(entry.state!.tasks['word-count']!.humanNote ?? '', /whitespace/);

    // Accept and Skip ask first, as from the tree; the test answers for the user.
    const beforeAccept = lastSeqOf(api, folder, runId);
    await clickConfirming(RUN_VIEW.taskButton('title-case', 'accept'), 'Accept', 'Accept task "title-case: Add titleCase()"?');
    await waitFor('title-case to merge', () => taskStates(api.services.controller.model.run(folder, runId)!)['title-case'] === 'MERGED');
    entry = await settled(api, folder, runId, beforeAccept);
    assert.equal(taskStates(entry).summary, 'MERGED', 'summary ran once both dependencies were merged');

    const beforeSkip = lastSeqOf(api, folder, runId);
    await clickConfirming(RUN_VIEW.taskButton('flaky', 'skip'), 'Skip', 'Skip task "flaky:');
    await waitFor('flaky to be skipped', () => taskStates(api.services.controller.model.run(folder, runId)!).flaky === 'SKIPPED');
    entry = await settled(api, folder, runId, beforeSkip);
    assert.equal(taskStates(entry).flaky, 'SKIPPED');
    assert.equal(entry.summary.status, 'completed');
    assert.equal(entry.state!.integration.merged.length, 4);
    // The progress toast does not just vanish: the end is said, with the next step a button away.
    const ended = new Notification('completed —');
    // A toast hides itself after some seconds (sooner on a loaded machine than the run's end is seen here): the notification centre keeps it.
    await vscode.commands.executeCommand('notifications.showList');
    await ended.shown(30_000);
    assert.match(await ended.message(), /^Taskloom: ".+" completed — 4\/5 merged, 1 skipped, integration gate passed\.$/);
    // The demo repository has no remote to push a pull request to.
    assert.deepEqual(await ended.buttons(), ['Review Diff', 'Apply…']);
    // The centre keeps every toast of the session: none of them is an outdated "stopped" one.
    assert.deepEqual(await new Notification('stopped').all(), [], 'the stops along the way were never toasts');
    await vscode.commands.executeCommand('notifications.hideList');
    // The header counts as the end of the run does: merged of all, the skipped one apart.
    assert.deepEqual(await runView.headerCounts(), ['4/5 merged, 1 skipped']);
    await takeScreenshot('tree-completed');
  });

  test('the run view receives the run: decisions, timeline and usage', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    const entry = api.services.controller.model.run(folder, runId)!;
    const panel = await waitFor('the run view to draw the run', () =>
      // Open since the plan was approved: the view has every event of the run.
      watchRunViews(api).drawn(runId, entry.state!.lastSeq),
    );
    assert.ok(panel.panel.visible);
    await showTheme('Default Dark Modern', 'dark');
    await takeScreenshot('run-view-dark');
    // A planner's title with markup and terminal escapes is drawn as text, not made into elements.
    const labels = await runView.graphTexts();
    assert.ok(labels.some((text) => text.startsWith('Add an <b>HTML</b> report')), `the graph shows the title literally (${labels.join(' | ')})`);
    assert.ok(!labels.some((text) => text.includes('\u001b')), 'no terminal escapes reach the view');
    await runView.showTab('ledger');
    await showTheme('Default Light Modern', 'light');
    await takeScreenshot('run-view-light-ledger');
    await runView.showTab('timeline');
    // The timeline draws once the task histories the first page left out have arrived.
    await runView.integrationLabelShown();
    const [integrationRow] = await runView.integrationLabels();
    assert.match(integrationRow ?? '', /integration$/, 'the merge queue has its row');
    // Its phases, from the events: a merge and an integration gate per batch, and the fixes of tasks it sent back.
    const merges = await runView.integrationMerges();
    const gates = await runView.integrationGates();
    assert.ok(merges.length >= 4 && merges.every((title) => title.startsWith('Merging batch ')), `a merge per batch: ${merges.join(' | ')}`);
    assert.ok(gates.length >= 4 && gates.every((title) => /^Integration gate (passed|failed)/.test(title)), `a gate per batch: ${gates.join(' | ')}`);
    const sentBack = entry.state!.taskOrder.filter((id) => entry.state!.tasks[id]!.transitions.some((t) => t.to === 'MERGE_CONFLICT' || t.to === 'INTEGRATION_FAILED'));
    const fixes = await runView.integrationFixes();
    assert.deepEqual([...new Set(fixes.map((title) => /^After-merge fix of (\S+),/.exec(title)?.[1]))].sort(), sentBack.sort(), `fixes: ${fixes.join(' | ')}`);
    // The key names every phase drawn: after-merge work and interruptions too.
    assert.deepEqual(await runView.timelineLegend(), Object.values(PHASE_LOOK).map((look) => look.label));
    assert.match((await runView.timelineCaptions())[0] ?? '', /^from the first task's start at .+ \(planning and approval took .+ before it\)/);
    await takeScreenshot('run-view-light-timeline');
    await showTheme('Default Dark Modern', 'dark');
    await takeScreenshot('run-view-dark-timeline');
    await showTheme('Default High Contrast', 'high-contrast');
    await takeScreenshot('run-view-high-contrast-timeline');
    await runView.zoomIn();
    await runView.zoomIn();
    assert.deepEqual(await runView.zoomLabels(), ['200%']);
    await takeScreenshot('run-view-high-contrast-timeline-zoomed');
    await runView.showTab('usage');
    await showTheme('Default Dark Modern', 'dark');
    await takeScreenshot('run-view-dark-usage');
    await setTheme(undefined);
  });

  test('a "ledger #N" link lands on entry N, even with another section and tab in front', async () => {
    const api = await taskloom();
    const views = watchRunViews(api);
    const panel = views.panel(runId)!;
    const review = api.services.controller.model.run(folder, runId)!.state!.decisions.find((d) => d.kind === 'critic' && d.taskId === 'title-case')!;
    assert.ok(review, 'title-case was reviewed');
    await runView.showTab('usage');
    await vscode.window.showTextDocument(vscode.Uri.file(join(folder, 'README.md')));
    // What a Problems entry's "ledger #N" code runs.
    views.of(panel).lastFocused = undefined;
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId, taskId: 'title-case', seq: review.seq });
    assert.deepEqual(await waitFor('the link to land', () => views.of(panel).lastFocused), { found: true, seq: review.seq });
    await runView.highlightedEntryShown(review.seq);
    const [text] = await runView.highlightedEntrySummaries();
    assert.equal(text, wordDecision(review).summary);
    await takeScreenshot('run-view-ledger-link');
  });

  test('a review’s "diff" in the ledger shows the diff that review read, not today’s', async () => {
    const events = readFileSync(join(folder, '.taskloom', 'runs', runId, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as RunEvent);
    const reviews = events.filter((e): e is Extract<RunEvent, { type: 'critic_verdict' }> => e.type === 'critic_verdict' && e.taskId === 'word-count');
    assert.ok(reviews.length >= 2, 'word-count was reviewed again after resolving its README conflict');
    const first = reviews[0]!;
    assert.ok(first.commit && first.base, 'the verdict records the commits the critic read');
    const tip = git(folder, 'rev-parse', 'taskloom/' + runId + '/word-count');
    assert.notEqual(first.commit, tip, 'the task moved on after its first review');
    await runView.entryDiff(first.seq);
    await waitFor('the diff of review 1', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label.includes('Taskloom word-count, review 1'));
    const readme = await waitFor('README as review 1 read it', () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'taskloom-diff' && d.uri.path.endsWith('README.md') && d.uri.query.includes(first.commit!) && d.getText().length > 0),
    );
    assert.equal(readme.getText(), git(folder, 'show', `${first.commit}:README.md`) + '\n');
    assert.notEqual(readme.getText(), git(folder, 'show', `${tip}:README.md`) + '\n', 'today’s README differs');
    await takeScreenshot('review-diff');
  });

  test('Show Task Diff from the palette works on a completed run', async () => {
    void vscode.commands.executeCommand('taskloom.showTaskDiff');
    await quickInput.rowShown('title-case');
    await typeText('title-case');
    await pressKey('Enter');
    const tab = await waitFor('the diff of title-case', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label.includes('Taskloom title-case') && vscode.window.tabGroups.activeTabGroup.activeTab);
    assert.ok(tab);
  });

  test('Show Task Diff opens the task’s changes in the diff editor', async () => {
    await vscode.commands.executeCommand('taskloom.showTaskDiff', { folder, runId, taskId: 'slugify' });
    // Two files changed: VS Code's multi-file diff editor opens, reading both sides through Taskloom.
    const tab = await waitFor('the diff editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label.includes('Taskloom slugify') && vscode.window.tabGroups.activeTabGroup.activeTab);
    assert.ok(tab);
    const modified = await waitFor('the changed file read at the task branch', () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'taskloom-diff' && d.uri.path.endsWith('src/slugify.js') && d.getText().length > 0),
    );
    assert.match(modified.getText(), /slugify/);
    await takeScreenshot('task-diff');
  });

  test('Apply Integration refuses a dirty tree before asking, then Apply… in the run view names the branch, the history and the commits, and makes them', async () => {
    const before = git(folder, 'rev-parse', 'HEAD');
    const dirty = join(folder, 'README.md');
    const original = await vscode.workspace.fs.readFile(vscode.Uri.file(dirty));
    await vscode.workspace.fs.writeFile(vscode.Uri.file(dirty), Buffer.from('uncommitted edit\n'));
    const api = await taskloom();
    const askedWhenDirty = await answeringConfirmations(api, 'Apply', () => vscode.commands.executeCommand('taskloom.applyIntegration', { folder, runId }));
    assert.deepEqual(askedWhenDirty, [], 'a dirty tree is refused before the question');
    assert.equal(git(folder, 'rev-parse', 'HEAD'), before, 'nothing was merged into a dirty tree');
    await vscode.workspace.fs.writeFile(vscode.Uri.file(dirty), original);

    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId });
    // The corner shows three toasts at most, and the earlier tests' stay up here: cleared, the
    // apply's own toast is the one on screen.
    await vscode.commands.executeCommand('notifications.clearAll');
    const question = await clickConfirming(RUN_VIEW.deliveryButton('apply'), 'Apply', 'Apply "Grow textkit');
    const promised = /to main as (\d+) commits\?/.exec(question);
    assert.ok(promised, question);
    assert.match(question, /With merge history: one commit per task, joined to the branch by a merge commit\. Not included \(skipped\): flaky\./);
    await waitFor('the branch to move', () => git(folder, 'rev-parse', 'HEAD') !== before);
    assert.equal(git(folder, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
    const made = Number(git(folder, 'rev-list', '--count', `${before}..HEAD`));
    assert.equal(made, Number(promised[1]), 'the confirmation named the commits the apply made');
    // One commit per merged task (its title), joined by the merge commit; the drafts are not among them.
    const titles = git(folder, 'log', '--no-merges', '--format=%s', `${before}..HEAD`).split('\n').sort();
    assert.deepEqual(titles, ['Add slugify()', 'Add summarize()', 'Add titleCase()', 'Add wordCount()']);
    assert.equal(made, titles.length + 1);
    const commits = git(folder, 'rev-list', `${before}..HEAD`).split('\n');
    const holdingDraft = spawnSync('git', ['grep', '-l', '-F', "text.split(' ').length", ...commits], { cwd: folder, encoding: 'utf8' });
    assert.equal(holdingDraft.status, 1, `no commit holds word-count's attempt the gate failed: ${holdingDraft.stdout}${holdingDraft.stderr}`);
    for (const file of ['src/slugify.js', 'src/wordCount.js', 'src/titleCase.js', 'src/summary.js']) {
      assert.ok(existsSync(join(folder, file)), `${file} is on the user's branch`);
    }
    assert.equal(git(folder, 'status', '--porcelain', '--untracked-files=no'), '');
    // The notification says what was made: the branch, the history and the count, as git counts it.
    const applied = new Notification('applied the run to main');
    await applied.shown(60_000);
    await vscode.commands.executeCommand('notifications.showList');
    assert.match(await applied.message(), new RegExp(`^Taskloom applied the run to main as ${made} commits \\(merge history\\): \\d+ changed files, now at [0-9a-f]{10}\\. Not included \\(skipped\\): flaky\\.$`));
    await takeScreenshot('applied');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  test('a completed run leaves no critic findings in the Problems panel', async () => {
    // Its findings were shown while it needed you (the problems session shows them); decided and done, they go.
    await waitFor('the findings to go', () => !vscode.languages.getDiagnostics().some(([, list]) => list.some((d) => String(d.source).startsWith('Taskloom critic'))));
  });

  test('Run the Demo next to another project asks before opening a new window, and does nothing without a yes', async () => {
    const api = await taskloom();
    const runs = api.services.controller.model.runs(folder).length;
    const asked = await answeringConfirmations(api, undefined, () => vscode.commands.executeCommand('taskloom.runDemo'));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /^Run the demo in a new window\?\nThis window has textkit open\./);
    assert.equal(api.services.controller.model.runs(folder).length, runs, 'no run started here');
  });
});
