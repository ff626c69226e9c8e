import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';

/**
 * Runs `taskloom demo` in a terminal: a small real project in a new temp folder, a five-task
 * run through the scripted agent (no API key, no network). The folder can be opened to watch the
 * run in the Runs view.
 */
export async function runDemo(services: Services): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'taskloom-demo-'));
  const terminal = vscode.window.createTerminal({
    name: 'Taskloom demo',
    // The extension host's own runtime runs the bundled CLI (Electron's needs to be told to act as Node).
    shellPath: process.execPath,
    shellArgs: [services.context.asAbsolutePath('dist/cli.js'), 'demo', '--dir', dir],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  });
  terminal.show();
  void vscode.window
    .showInformationMessage(`The Taskloom demo runs in the terminal, in ${dir}. Open that folder to watch its run in the Runs view.`, 'Open Demo Folder')
    .then((choice) => choice && vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(dir), { forceNewWindow: true }));
}
