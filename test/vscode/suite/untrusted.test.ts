// An untrusted workspace (the session turns workspace trust on, and nobody answers the prompt):
// the window is in restricted mode, and the installed Taskloom is enabled or disabled exactly
// as its manifest's capabilities.untrustedWorkspaces says (undeclared = not supported).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { takeScreenshot } from './screenshot';

suite('untrusted workspace', () => {
  test('the workspace is not trusted', () => {
    assert.equal(vscode.workspace.getConfiguration('security.workspace.trust').get('enabled'), true);
    assert.equal(vscode.workspace.isTrusted, false);
  });

  test('Taskloom follows its declared support for untrusted workspaces', async () => {
    const manifest = JSON.parse(readFileSync(join(process.env.TASKLOOM_TEST_REPO_ROOT ?? '.', 'package.json'), 'utf8'));
    const supported = manifest.capabilities?.untrustedWorkspaces?.supported ?? false;
    const extension = vscode.extensions.getExtension('taskloom.taskloom');
    await takeScreenshot('restricted-mode');
    if (supported === false) {
      assert.equal(extension, undefined, 'an extension that does not support untrusted workspaces is disabled');
    } else {
      assert.ok(extension, `supported: ${JSON.stringify(supported)}, so the extension is enabled`);
      if (extension.packageJSON.main) {
        await extension.activate();
        assert.ok(extension.isActive);
      }
    }
  });
});
