// Proves the harness: the window opened the session's workspace, the Taskloom extension is
// there from the expected source (the repository under development, or the installed .vsix)
// and activates, and the runner takes screenshots.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import { runnerAvailable } from './runnerControl';
import { takeScreenshot } from './screenshot';

const EXTENSION_ID = 'taskloom.taskloom';

function taskloom(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not loaded (publisher.name from package.json)`);
  return extension;
}

suite('smoke', () => {
  test('the workspace folder is open', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1, 'one workspace folder');
    const folder = folders[0].uri.fsPath;
    if (process.env.TASKLOOM_TEST_WORKSPACE) {
      assert.equal(realpathSync(folder), realpathSync(process.env.TASKLOOM_TEST_WORKSPACE));
    }
    assert.ok(existsSync(join(folder, '.git')), 'the workspace is a git repository');
  });

  test('the Taskloom extension is present from the expected source', () => {
    const extension = taskloom();
    const extensionDir = realpathSync(extension.extensionUri.fsPath);
    const repoRoot = process.env.TASKLOOM_TEST_REPO_ROOT;
    switch (process.env.TASKLOOM_TEST_EXTENSION_SOURCE) {
      case 'development':
        assert.equal(extensionDir, realpathSync(repoRoot ?? ''), 'the repository is the extension under development');
        break;
      case 'vsix': {
        const extensionsDir = realpathSync(process.env.TASKLOOM_TEST_EXTENSIONS_DIR ?? '');
        const inside = !relative(extensionsDir, extensionDir).startsWith('..');
        assert.ok(inside, `${extensionDir} is not under ${extensionsDir}`);
        assert.ok(!existsSync(join(extensionDir, 'src')), 'the installed extension holds no sources');
        const manifest = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
        assert.ok(manifest.main && existsSync(join(extensionDir, manifest.main)), `its entry point ${manifest.main} is packaged`);
        break;
      }
      default: // desktop VS Code via @vscode/test-electron or @vscode/test-cli
    }
  });

  test('the extension activates', async () => {
    const extension = taskloom();
    await extension.activate();
    assert.ok(extension.isActive);
  });

  test('the runner takes a screenshot', async function () {
    if (!runnerAvailable()) this.skip();
    const path = await takeScreenshot('window');
    assert.ok(path && existsSync(path), `screenshot ${path} exists`);
    const png = readFileSync(path);
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')], 'it is a PNG');
    assert.ok(png.length > 10_000, `a real picture, not an empty one (${png.length} bytes)`);
  });
});
