import * as vscode from 'vscode';
import { FileAtCommitRequest } from '../../protocol/engineProtocol';
import type { Services } from '../services';

/**
 * `taskloom-diff:/<path>?<json>`: a file at a commit of a folder's repository, read through the
 * engine. The URI holds all it needs, so a diff tab VS Code restores after a reload reads its
 * sides again (package.json activates the extension on `onFileSystem:taskloom-diff` for that).
 */
export const GIT_SCHEME = 'taskloom-diff';

export function gitUri(folder: string, commit: string, path: string): vscode.Uri {
  return vscode.Uri.from({ scheme: GIT_SCHEME, path: `/${path}`, query: JSON.stringify({ folder, commit }) });
}

export class GitContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: Services) {}
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const { folder, commit } = JSON.parse(uri.query) as { folder: string; commit: string };
    const { content } = await this.services.engine.request(FileAtCommitRequest.type, { folder, commit, path: uri.path.slice(1) });
    return content ?? '';
  }
}
