import * as vscode from 'vscode';
import type { Services } from '../services';

/** Taskloom: Show Insights — the figures of `taskloom stats` for a folder (the only one, or the one picked). */
export async function showInsights(services: Services, folder?: string): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const chosen = folder ?? (folders.length === 1 ? folders[0]!.uri.fsPath : (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Insights of the runs in which folder?' }))?.uri.fsPath);
  if (chosen === undefined) {
    if (folders.length === 0) void vscode.window.showInformationMessage('Taskloom: open a folder with runs to see its insights.');
    return;
  }
  services.insights.show(chosen);
}
