// Proves the runner controls a suite can use (runnerControl.ts): the command palette, the
// keyboard, clicks in a notification and inside a webview, screenshots, and a real window
// reload that the suite survives by its phase. Skipped without the runner (desktop VS Code).
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { HARNESS_WEBVIEW_HTML, harnessWebview } from './pages/harnessWebviewPage';
import { Notification, quickInput } from './pages/workbenchPage';
import { pressKey, reloadWindow, runPaletteCommand, runnerAvailable, testPhase, typeText } from './runnerControl';
import { takeScreenshot } from './screenshot';
import { until } from './until';

const beforeReloadFile = () => join(process.env.TASKLOOM_TEST_ARTIFACTS ?? '.', 'harness-before-reload.json');

if (testPhase() === 1) {
  suite('harness: runner controls', () => {
    suiteSetup(function () {
      if (!runnerAvailable()) this.skip();
    });

    test('the palette runs a command by its exact title', async () => {
      await runPaletteCommand('Preferences: Open User Settings (JSON)');
      const editor = await until('the user settings.json editor', () =>
        vscode.window.activeTextEditor?.document.uri.path.endsWith('/User/settings.json')
          ? vscode.window.activeTextEditor
          : undefined,
      );
      assert.match(editor.document.getText(), /security\.workspace\.trust\.enabled/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    test('the keyboard answers an input box', async () => {
      const answer = vscode.window.showInputBox({ prompt: 'Harness: type a word' });
      await quickInput.shown();
      await typeText('loom');
      await pressKey('Enter');
      assert.equal(await answer, 'loom');
    });

    test('a click picks a notification button', async () => {
      const choice = vscode.window.showInformationMessage('Harness: resume the last run?', 'Resume', 'Later');
      const toast = new Notification('Harness: resume the last run?');
      await toast.shown();
      assert.equal(await toast.message(), 'Harness: resume the last run?');
      assert.deepEqual(await toast.buttons(), ['Resume', 'Later']);
      await takeScreenshot('notification');
      await toast.press('Resume');
      assert.equal(await choice, 'Resume');
    });

    test('a click reaches a button inside a webview', async () => {
      const panel = vscode.window.createWebviewPanel('taskloomHarness', 'Harness', vscode.ViewColumn.One, {
        enableScripts: true,
      });
      try {
        const pressed = new Promise<unknown>((resolve) => panel.webview.onDidReceiveMessage(resolve));
        panel.webview.html = HARNESS_WEBVIEW_HTML;
        await harnessWebview.buttonShown();
        assert.deepEqual(await harnessWebview.texts(), ['Harness webview']);
        await takeScreenshot('webview');
        await harnessWebview.pressButton();
        assert.deepEqual(await pressed, { pressed: true });
      } finally {
        panel.dispose();
      }
    });

    test('reloading the window starts phase 2', async () => {
      writeFileSync(beforeReloadFile(), JSON.stringify({ pid: process.pid, phase: testPhase() }));
      await reloadWindow(); // never returns: the extension host ends here
    });
  });
} else {
  suite('harness: after the reload', () => {
    test('a new extension host runs phase 2 in the same window and workspace', () => {
      assert.equal(testPhase(), 2);
      assert.ok(existsSync(beforeReloadFile()), 'phase 1 left its note');
      const before = JSON.parse(readFileSync(beforeReloadFile(), 'utf8'));
      assert.equal(before.phase, 1);
      assert.notEqual(before.pid, process.pid, 'the extension host is a new process');
      assert.equal(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, process.env.TASKLOOM_TEST_WORKSPACE);
      assert.ok(vscode.extensions.getExtension('taskloom.taskloom'), 'the extension is loaded again');
    });
  });
}
