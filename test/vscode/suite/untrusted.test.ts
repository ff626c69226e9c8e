// An untrusted workspace (the session turns workspace trust on, and nobody answers the prompt):
// the window is in restricted mode, and the installed Taskloom (which runs agents and the
// project's commands) is disabled by VS Code: nothing of it runs or writes.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { takeScreenshot } from './screenshot';

suite('untrusted workspace', () => {
  test('the workspace is not trusted', () => {
    assert.equal(vscode.workspace.getConfiguration('security.workspace.trust').get('enabled'), true);
    assert.equal(vscode.workspace.isTrusted, false);
  });

  test('Taskloom does not start: it is disabled, its commands do not run, nothing is written', async () => {
    const manifest = JSON.parse(readFileSync(join(process.env.TASKLOOM_TEST_REPO_ROOT ?? '.', 'package.json'), 'utf8'));
    assert.equal(manifest.capabilities?.untrustedWorkspaces?.supported, false, 'the manifest declares no untrusted support');
    assert.match(manifest.capabilities.untrustedWorkspaces.description, /runs coding agents/, 'and says why');
    assert.equal(vscode.extensions.getExtension('taskloom.taskloom'), undefined, 'VS Code disabled the extension (restricted mode)');
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('taskloom.startGoal', { goal: 'x' })), /not found/);
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    assert.equal(existsSync(join(folder, '.taskloom')), false, 'nothing of Taskloom was written');
    await takeScreenshot('restricted-mode');
  });
});
