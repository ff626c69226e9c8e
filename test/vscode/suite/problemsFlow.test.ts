import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatStream } from '../../../src/extension/chat/chatParticipant';
import { SUITE_GOAL } from '../fixtures/scenario';
import { DEMO_PLAN } from '../../../src/engine/demo/demoProject';
import { runView } from './pages/runViewPage';
import { Notification, quickInput, workbench } from './pages/workbenchPage';
import { pressKey } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { answeringConfirmations, EXTENSION_ID, newestRun, settled, taskloom, taskStates, waitFor, workspaceFolder, startGoalAwaitingApproval } from './vscodeUtil';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** Every critic finding in the Problems panel, with the run it belongs to. */
function criticProblems(): Array<{ uri: vscode.Uri; d: vscode.Diagnostic; runId: string }> {
  return vscode.languages
    .getDiagnostics()
    .flatMap(([uri, list]) => list.map((d) => ({ uri, d })))
    .filter(({ d }) => String(d.source).startsWith('Taskloom critic'))
    .map(({ uri, d }) => ({ uri, d, runId: (JSON.parse(uri.query) as { runId: string }).runId }));
}

/** A ChatResponseStream that keeps what the participant streamed. */
function recordingStream() {
  const streamed = { markdown: [] as string[], progress: [] as string[], buttons: [] as vscode.Command[] };
  const stream: ChatStream = {
    markdown: (value) => void streamed.markdown.push(typeof value === 'string' ? value : value.value),
    progress: (value) => void streamed.progress.push(value),
    button: (command) => void streamed.buttons.push(command),
  };
  return { stream, streamed };
}

/**
 * What a user finds where VS Code users look: critic findings that open the task branch's file,
 * read-only gate output, plan edits checked against a schema with problems where they are, a
 * walkthrough, keybindings, the language model tools and the @taskloom chat participant.
 */
suite('Findings, documents and the ways in', function () {
  this.timeout(300_000);
  const folder = workspaceFolder();
  let firstRun = '';
  let secondRun = '';

  test('a run that needs you puts its findings in the Problems panel, on the branch’s files, none on the checkout', async () => {
    const api = await taskloom();
    const planned = await startGoalAwaitingApproval(api, folder, SUITE_GOAL);
    firstRun = planned.summary.runId;
    await vscode.commands.executeCommand('taskloom.approvePlan', { folder, runId: firstRun });
    const entry = await settled(api, folder, firstRun);
    assert.equal(taskStates(entry)['title-case'], 'NEEDS_HUMAN');

    const problems = await waitFor('critic findings', () => (criticProblems().length ? criticProblems() : undefined));
    assert.ok(
      problems.every(({ uri }) => uri.scheme === 'taskloom-branch'),
      `findings sit on the branch's files, not on the checkout: ${problems.map((p) => p.uri.toString()).join(', ')}`,
    );
    const onCheckout = vscode.languages.getDiagnostics().filter(([uri, list]) => uri.scheme === 'file' && uri.fsPath.startsWith(join(folder, '.taskloom')) && list.length);
    assert.deepEqual(onCheckout, [], 'no problem decorations on the checkout folders');
    const finding = problems.find(({ uri, d }) => uri.path === '/test/titleCase.test.js' && /empty text/.test(d.message));
    assert.ok(finding, `the title-case finding is listed (${problems.map((p) => `${p.uri.path}: ${p.d.message}`).join('; ')})`);
    assert.ok(!existsSync(join(folder, 'test/titleCase.test.js')), 'the file exists only on the task branch');
  });

  test('a Problems entry opens the file as it stands on the task branch, read-only', async () => {
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    await workbench.openProblem('[title-case]');
    const editor = await waitFor('the branch file in an editor', () =>
      vscode.window.activeTextEditor?.document.uri.scheme === 'taskloom-branch' ? vscode.window.activeTextEditor : undefined,
    );
    const api = await taskloom();
    const branch = api.services.controller.model.run(folder, firstRun)!.state!.tasks['title-case']!.branch!;
    assert.equal(editor.document.uri.path, '/test/titleCase.test.js');
    assert.equal(editor.document.getText(), git(folder, 'show', `${branch}:test/titleCase.test.js`) + '\n');
    const before = editor.document.getText();
    await vscode.window.showTextDocument(editor.document, { preview: true, preserveFocus: false });
    await pressKey('x', 'Enter');
    await workbench.readOnlyMessageShown();
    assert.equal(editor.document.getText(), before, 'typing changes nothing');
    assert.equal(editor.document.isDirty, false);
    await takeScreenshot('finding-opens-branch-file');
  });

  test('gate output opens as a read-only document, not an Untitled one to save', async () => {
    const api = await taskloom();
    await vscode.commands.executeCommand('taskloom.showRun', { folder, runId: firstRun });
    await waitFor('the run view', () => api.services.runViews.panels().find((p) => p.runId === firstRun));
    await runView.showTab('ledger');
    await runView.gateOutput();
    const document = await waitFor('the gate output', () => vscode.window.activeTextEditor?.document.uri.scheme === 'taskloom-text' && vscode.window.activeTextEditor.document);
    // At the local time the ledger shows, not a UTC ISO timestamp.
    assert.match(document.getText(), /^Gate (passed|failed) \(task [^)]+\) at \d\d:\d\d:\d\d\n/);
    assert.equal(document.isDirty, false);
    assert.equal(document.isUntitled, false);
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'untitled'), 'no Untitled document was made');
    await takeScreenshot('gate-output-read-only');
  });

  test('the language model tools read a run’s state and hand Taskloom a goal', async () => {
    const api = await taskloom();
    const names = vscode.lm.tools.map((t) => t.name);
    assert.ok(names.includes('taskloom_startGoal') && names.includes('taskloom_runState'), `the tools are registered (${names.join(', ')})`);
    const token = new vscode.CancellationTokenSource().token;
    const textOf = (result: vscode.LanguageModelToolResult) =>
      result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');

    const state = textOf(await vscode.lm.invokeTool('taskloom_runState', { input: { runId: firstRun }, toolInvocationToken: undefined }, token));
    assert.match(state, new RegExp(`Run ${firstRun}`));
    assert.match(state, /Status: needs you; 1 of 5 tasks merged, 1 skipped/);
    assert.match(state, /\| `title-case` \| .+ \| needs you \|/);
    assert.match(state, /Needs you:\n(- .+\n)*- title-case: /);

    const started = textOf(await vscode.lm.invokeTool('taskloom_startGoal', { input: { goal: SUITE_GOAL }, toolInvocationToken: undefined }, token));
    const entry = await waitFor('the tool’s run', () => {
      const newest = newestRun(api, folder);
      return newest && newest.summary.runId !== firstRun && newest.summary.status === 'planning' ? newest : undefined;
    });
    secondRun = entry.summary.runId;
    assert.match(started, /\*\*Plan for\*\* .+ \(5 tasks\)/);
    assert.match(started, new RegExp(`Run ${secondRun} waits for the user to approve this plan`));
    // As after Start Goal, the plan opens for review in the run view, with Approve / Edit / Cancel Run.
    await waitFor('the plan to review in the run view', () => api.services.runViews.panels().find((p) => p.runId === secondRun));
    await new Notification('drafted 5 task').shown();
    // Two runs of one goal, each in its tab: the tabs tell them apart.
    const titles = api.services.runViews.panels().map((p) => p.panel.title);
    assert.equal(titles.length, 2);
    assert.notEqual(titles[0], titles[1]);
    await waitFor('both run views in tabs, by their titles', async () => {
      const shown = await workbench.editorTabTitles();
      return titles.every((title) => shown.includes(title));
    });
    await runView.planShown();
    await takeScreenshot('two-run-tabs');
  });

  test('an edited plan is checked against the schema, with problems at their real line and column', async () => {
    await vscode.commands.executeCommand('taskloom.editPlan', { folder, runId: secondRun });
    const document = await waitFor('the plan in an editor', () => vscode.window.activeTextEditor?.document.fileName.endsWith(`${secondRun}.plan.json`) && vscode.window.activeTextEditor.document);
    const { uri } = document;
    // Edited and saved as a person does: the text changes in the editor, then Ctrl+S.
    const replaceAll = async (text: string) => {
      const editor = await vscode.window.showTextDocument(document, { preview: false });
      assert.ok(await editor.edit((e) => e.replace(new vscode.Range(0, 0, document.lineCount, 0), text)));
      await pressKey('Control+S');
      await waitFor('the plan to be saved', () => !document.isDirty, 20_000).catch(async (error: unknown) => {
        await takeScreenshot('plan-save-failed');
        throw error;
      });
    };
    const original = document.getText();
    const broken = original.replace(/"title": "[^"]*"/, '"title": ""').replace(/"dependsOn": \[\]/, '"dependsOn": ["nowhere"]');
    await replaceAll(broken);
    const planProblems = await waitFor('the plan’s problems', () => {
      const list = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Taskloom plan');
      return list.length >= 2 ? list : undefined;
    });
    const lines = broken.split('\n');
    const titleLine = lines.findIndex((l) => l.includes('"title": ""'));
    const title = planProblems.find((d) => /title.*must not be empty/.test(d.message));
    assert.ok(title, planProblems.map((d) => d.message).join('; '));
    assert.deepEqual([title.range.start.line, title.range.start.character, title.range.end.character], [titleLine, lines[titleLine]!.indexOf('""'), lines[titleLine]!.indexOf('""') + 2]);
    const unknown = planProblems.find((d) => /unknown task "nowhere"/.test(d.message));
    assert.ok(unknown);
    assert.equal(unknown.range.start.line, lines.findIndex((l) => l.includes('"nowhere"')));
    assert.equal(document.getText(unknown.range), '"nowhere"');
    // The JSON language service validates the file with the shipped schema as well.
    const schema = await waitFor('a schema problem', () => vscode.languages.getDiagnostics(uri).find((d) => d.source !== 'Taskloom plan' && /short|length|String/i.test(d.message)));
    assert.equal(schema.range.start.line, titleLine);
    await vscode.window.showTextDocument(document, { preview: false });
    await takeScreenshot('plan-edit-problems');

    await replaceAll(original);
    await waitFor('the problems to go', () => !vscode.languages.getDiagnostics(uri).some((d) => d.source === 'Taskloom plan'));
    await new Notification('The edited plan is valid').shown();
    assert.deepEqual(await new Notification('problem').all(), [], 'no toast about problems stays beside "valid"');
    await vscode.window.showTextDocument(document, { preview: false });
    await takeScreenshot('plan-edit-valid');
  });

  test('@taskloom /approve approves the waiting plan and streams the run until it needs you', async () => {
    const api = await taskloom();
    const { stream, streamed } = recordingStream();
    await api.handleChatRequest({ prompt: '', command: 'approve' }, stream, new vscode.CancellationTokenSource().token);
    const entry = await settled(api, folder, secondRun);
    assert.equal(taskStates(entry)['title-case'], 'NEEDS_HUMAN');
    const text = streamed.markdown.join('');
    assert.match(text, /Approving the plan of \*\*.+\*\* \(5 tasks\)/);
    assert.match(text, /- `slugify`: building/);
    assert.match(text, /- `slugify`: merged/);
    assert.match(text, /- `title-case`: needs you/);
    assert.match(text, /Status: needs you/);
    assert.deepEqual(streamed.progress, ['Running…']);
    assert.deepEqual(streamed.buttons.map((b) => [b.command, b.title]), [['taskloom.showRun', 'Show Run']]);
  });

  test('the findings of both runs that need you are shown; deciding a task clears its findings', async () => {
    const api = await taskloom();
    const runs = await waitFor('findings of both runs', () => {
      const ids = new Set(criticProblems().map((p) => p.runId));
      return ids.has(firstRun) && ids.has(secondRun) ? ids : undefined;
    });
    assert.equal(runs.size, 2);
    const asked = await answeringConfirmations(api, 'Accept', () => vscode.commands.executeCommand('taskloom.acceptTask', { folder, runId: firstRun, taskId: 'title-case' }));
    assert.equal(asked.length, 1, 'Accept asked first');
    await settled(api, folder, firstRun);
    await waitFor('the accepted task’s findings to go', () => !criticProblems().some((p) => p.runId === firstRun && /empty text/.test(p.d.message)));
    assert.ok(criticProblems().some((p) => p.runId === secondRun && /empty text/.test(p.d.message)), 'the other run’s finding stays');
  });

  test('@taskloom with a goal answers with the plan and buttons; /status tells the newest run', async () => {
    const api = await taskloom();
    const { stream, streamed } = recordingStream();
    await api.handleChatRequest({ prompt: SUITE_GOAL }, stream, new vscode.CancellationTokenSource().token);
    const planned = newestRun(api, folder)!;
    assert.equal(planned.summary.status, 'planning');
    assert.deepEqual(streamed.progress, [`Planning "${SUITE_GOAL}"…`]);
    assert.match(streamed.markdown.join(''), /\*\*Plan for\*\* .+ \(5 tasks\)\n\n1\. `slugify` /);
    assert.deepEqual(
      streamed.buttons.map((b) => [b.command, b.title, b.arguments]),
      ['taskloom.approvePlan', 'taskloom.editPlan', 'taskloom.showRun'].map((command, i) => [command, ['Approve', 'Edit Plan', 'Show Run'][i], [{ folder, runId: planned.summary.runId }]]),
    );
    const status = recordingStream();
    await api.handleChatRequest({ prompt: '', command: 'status' }, status.stream, new vscode.CancellationTokenSource().token);
    assert.match(status.streamed.markdown.join(''), new RegExp(`Run ${planned.summary.runId}.*\n\nStatus: plan awaits your approval`));
  });

  test('the walkthrough is contributed and opens', async () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { walkthroughs: Array<{ id: string; steps: Array<{ id: string }> }> } };
    const walkthrough = manifest.contributes.walkthroughs.find((w) => w.id === 'taskloom.gettingStarted');
    assert.deepEqual(walkthrough?.steps.map((s) => s.id), ['installAgent', 'runDemo', 'startGoal']);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#taskloom.gettingStarted`, false);
    await workbench.walkthroughSaying('Get Started with Taskloom');
    await workbench.walkthroughSaying('Install an agent CLI');
    await takeScreenshot('walkthrough');
  });

  test('Run the Demo (the walkthrough’s second step) runs in this window when the workspace is the demo', async () => {
    const api = await taskloom();
    const before = new Set(api.services.controller.model.runs(folder).map((e) => e.summary.runId));
    await vscode.commands.executeCommand('taskloom.runDemo');
    const started = await waitFor('the demo’s run in this window', () => {
      const newest = newestRun(api, folder);
      return newest && !before.has(newest.summary.runId) ? newest : undefined;
    });
    const runId = started.summary.runId;
    // Its own plan, played by its own scenario, approved as the demo's plan needs: no question asked.
    await waitFor('the run view on the demo', () => api.services.runViews.panels().find((p) => p.runId === runId));
    const entry = await settled(api, folder, runId);
    assert.equal(entry.state!.goal, DEMO_PLAN.goal);
    assert.equal(entry.state!.planApproved, true);
    assert.equal(entry.summary.status, 'completed', JSON.stringify(taskStates(entry)));
    assert.deepEqual(vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath), [folder], 'the same window, on the same folder');
    await takeScreenshot('demo-in-this-window');
  });

  test('Ctrl+Alt+K G starts a goal, on a chord VS Code does not use', async () => {
    await vscode.commands.executeCommand('workbench.action.openDefaultKeybindingsFile');
    const defaults = await waitFor('the default keybindings', () => vscode.window.activeTextEditor?.document.uri.scheme === 'vscode' && vscode.window.activeTextEditor.document.getText());
    // The file lists the extensions' keybindings too: ours must be the only ones on Ctrl+Alt+K.
    const onChord = defaults.split('\n').filter((line) => /"key": "ctrl\+alt\+k[" ]/.test(line));
    assert.deepEqual(onChord.filter((line) => !line.includes('"taskloom.')), [], 'nothing else uses Ctrl+Alt+K');
    assert.equal(onChord.length, 2);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Where a user's focus would be: in the Explorer.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await workbench.focusExplorer();
    await pressKey('Control+Alt+K', 'g');
    await quickInput.saying('Describe a goal');
    await takeScreenshot('start-goal-keybinding');
    await pressKey('Escape');
  });
});
