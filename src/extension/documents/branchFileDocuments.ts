import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { FileAtCommitRequest } from '../../protocol/engineProtocol';
import type { TaskRef } from '../targets/runRef';
import type { Services } from '../services';

/**
 * `taskloom-branch:/<path>?<task>`: a file as it stands on a task's branch. Read-only (a content
 * provider's documents are), and outside the workspace's files, so a finding on a file that
 * exists only on the branch opens it instead of offering to create it, and no checkout folder
 * gets a problem decoration.
 */
export const BRANCH_FILE_SCHEME = 'taskloom-branch';

export function branchFileUri(task: TaskRef, path: string): vscode.Uri {
  return vscode.Uri.from({ scheme: BRANCH_FILE_SCHEME, path: `/${path}`, query: JSON.stringify(task) });
}

export class BranchFileDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: Services) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const { folder, runId, taskId } = JSON.parse(uri.query) as TaskRef;
    const path = uri.path.slice(1);
    const task = (await this.services.controller.state(folder, runId))?.tasks[taskId];
    if (!task) return `Task ${taskId} of run ${runId} is not there any more (the run may have been discarded).`;
    const onBranch = task.branch
      ? await this.services.engine.request(FileAtCommitRequest.type, { folder, commit: task.branch, path }).then(
          (r) => r.content,
          () => null,
        )
      : null;
    if (onBranch !== null) return onBranch;
    // Written by the actor but not committed yet: the worktree holds it while the task runs.
    const inWorktree = task.worktreePath ? await readFile(join(task.worktreePath, path), 'utf8').catch(() => null) : null;
    if (inWorktree !== null) return inWorktree;
    return `${path} is neither on ${task.branch ?? `task ${taskId}'s branch`} nor in its worktree.`;
  }
}
