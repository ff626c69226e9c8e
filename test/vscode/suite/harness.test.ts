// Proves the runner controls a suite can use (runnerControl.ts): the command palette, the
// keyboard, clicks in a notification and inside a webview, screenshots, and a real window
// reload that the suite survives by its phase. Skipped without the runner (desktop VS Code).
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  click,
  pressKey,
  readTexts,
  reloadWindow,
  runPaletteCommand,
  runnerAvailable,
  testPhase,
  typeText,
  waitFor,
  WEBVIEW_FRAMES,
} from './runnerControl';
import { takeScreenshot } from './screenshot';
import { until } from './until';

const beforeReloadFile = () => join(process.env.TASKLOOM_TEST_ARTIFACTS ?? '.', 'harness-before-reload.json');

const WEBVIEW_HTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-harness';">
</head><body>
<p id="harness-text">Harness webview</p>
<button id="harness-button">Press me</button>
<script nonce="harness">
  const vscode = acquireVsCodeApi();
  document.getElementById('harness-button').addEventListener('click', () => vscode.postMessage({ pressed: true }));
</script>
</body></html>`;

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
      await waitFor({ selector: '.quick-input-widget .quick-input-box input' });
      await typeText('loom');
      await pressKey('Enter');
      assert.equal(await answer, 'loom');
    });

    test('a click picks a notification button', async () => {
      const choice = vscode.window.showInformationMessage('Harness: resume the last run?', 'Resume', 'Later');
      const toast = '.notifications-toasts .notification-toast';
      await waitFor({ selector: `${toast} .monaco-button:has-text("Resume")` });
      const messages = await readTexts({ selector: `${toast} .notification-list-item-message` });
      assert.ok(messages.some((m) => m.includes('Harness: resume the last run?')), JSON.stringify(messages));
      await takeScreenshot('notification');
      await click({ selector: `${toast} .monaco-button:has-text("Resume")` });
      assert.equal(await choice, 'Resume');
    });

    test('a click reaches a button inside a webview', async () => {
      const panel = vscode.window.createWebviewPanel('taskloomHarness', 'Harness', vscode.ViewColumn.One, {
        enableScripts: true,
      });
      try {
        const pressed = new Promise<unknown>((resolve) => panel.webview.onDidReceiveMessage(resolve));
        panel.webview.html = WEBVIEW_HTML;
        await waitFor({ selector: '#harness-button', frames: WEBVIEW_FRAMES });
        assert.deepEqual(await readTexts({ selector: '#harness-text', frames: WEBVIEW_FRAMES }), ['Harness webview']);
        await takeScreenshot('webview');
        await click({ selector: '#harness-button', frames: WEBVIEW_FRAMES });
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
