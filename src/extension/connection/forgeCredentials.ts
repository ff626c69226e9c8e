import * as vscode from 'vscode';
import type { ForgeParams } from '../../protocol/engineProtocol';
import { githubApiUrl } from '../settings';
import { errorWords } from './errorNotice';
import { userData } from './userErrors';

/**
 * Where the pull requests go: VS Code's GitHub sign-in when the user has one (asked for only when
 * `ask`), the taskloom.github.apiUrl setting for GitHub Enterprise. Without a sign-in the engine
 * uses GITHUB_TOKEN, GH_TOKEN or the GitHub CLI's login.
 */
async function forgeParams(folder: string, ask: boolean): Promise<ForgeParams> {
  const apiUrl = githubApiUrl(folder);
  // A custom API (Enterprise, or a test server) is not the github.com VS Code signs in to.
  if (apiUrl) return { apiUrl };
  const session = await vscode.authentication.getSession('github', ['repo'], ask ? { createIfNone: true } : { silent: true }).then(
    (s) => s,
    () => undefined,
  );
  return session ? { token: session.accessToken } : {};
}

/**
 * Calls the forge with the credentials at hand; when it has none or refuses them, offers VS Code's
 * GitHub sign-in once and calls again with it. Undefined when the user declined.
 */
export async function withForge<T>(folder: string, call: (forge: ForgeParams) => Thenable<T>): Promise<T | undefined> {
  try {
    return await call(await forgeParams(folder, false));
  } catch (error) {
    const user = userData(error);
    if (!user?.forgeCredentials) throw error;
    const choice = await vscode.window.showWarningMessage(`Taskloom: ${errorWords(error)}`, 'Sign in to GitHub');
    if (choice !== 'Sign in to GitHub') return undefined;
    return call(await forgeParams(folder, true));
  }
}

