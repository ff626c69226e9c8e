import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ResolveByHandResult } from '../../protocol/engineProtocol';
import { log } from '../logger';
import { gitUri } from './commitFileDocuments';

/**
 * Opens VS Code's three-way merge editor on a conflicted file of a task worktree: the task's work
 * (ours) and the integration branch (theirs) on top, their merge base below, the worktree's file
 * as the result. `_open.mergeEditor` is the workbench's own command (the git extension opens the
 * editor through it); should it ever refuse, the file opens with its conflict markers instead.
 */
export async function openMergeEditor(folder: string, resolution: ResolveByHandResult, file: string): Promise<void> {
  const output = vscode.Uri.file(join(resolution.path, file));
  try {
    await vscode.commands.executeCommand('_open.mergeEditor', {
      base: gitUri(folder, resolution.base, file),
      input1: { uri: gitUri(folder, resolution.ours, file), title: 'This task', description: resolution.ours.slice(0, 10) },
      input2: { uri: gitUri(folder, resolution.theirs, file), title: 'Integration branch', description: resolution.theirs.slice(0, 10) },
      output,
    });
  } catch (error) {
    log.warn(`The merge editor did not open (${(error as Error).message}); showing ${file} with its conflict markers`);
    await vscode.window.showTextDocument(output, { preview: false });
  }
}
