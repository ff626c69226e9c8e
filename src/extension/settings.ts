import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import type { ApplyHistory } from '../engine/domain/events';
import { EDITOR_SETTING_KEYS, type RunSettings } from '../protocol/runSettings';

/**
 * The `taskloom.*` settings the user set for a folder (folder-level settings win in multi-root
 * workspaces), each read by its key in EDITOR_SETTING_KEYS and passed on as it is: the engine
 * checks them, lays them over the repository's taskloom.json and applies the defaults (the
 * manifest declares the same ones, so the Settings editor shows them). A setting left at its
 * default is not sent, so the file's value shows through.
 */
export function readRunSettings(folder: string): RunSettings {
  const config = vscode.workspace.getConfiguration(undefined, vscode.Uri.file(folder));
  const settings: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(EDITOR_SETTING_KEYS)) {
    const value = config.get<unknown>(key);
    if (value !== undefined && isSetByUser(config, key, value)) setDotted(settings, field, value);
  }
  return settings as RunSettings;
}

/**
 * Whether the value VS Code gives is one the user set (user, workspace or folder settings), not
 * the manifest's default. The value itself is always get()'s, which honours each setting's scope:
 * a level counts only when it holds that very value, so a workspace's value of a machine-scoped
 * setting, which get() ignores, never counts as set.
 */
function isSetByUser(config: vscode.WorkspaceConfiguration, key: string, value: unknown): boolean {
  const levels = config.inspect(key);
  if (!levels) return false;
  return [levels.globalValue, levels.workspaceValue, levels.workspaceFolderValue].some((v) => v !== undefined && isDeepStrictEqual(v, value));
}

function setDotted(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts.at(-1)!] = value;
}

/** An editor-only `taskloom.*` setting, its default being the manifest's. */
const editorSetting = <T>(folder: string, key: string): T | undefined =>
  vscode.workspace.getConfiguration('taskloom', vscode.Uri.file(folder)).get<T>(key);

export const isAutopilot = (folder: string): boolean => editorSetting<boolean>(folder, 'autopilot') === true;
/** As the user set it (the manifest's enum, but settings.json takes anything): the server checks it. */
export const applyHistory = (folder: string): ApplyHistory | undefined => editorSetting<ApplyHistory>(folder, 'apply.history');
export const githubApiUrl = (folder: string): string => editorSetting<string>(folder, 'github.apiUrl')?.trim() ?? '';
export const keepsPullRequestsGreen = (folder: string): boolean => editorSetting<boolean>(folder, 'pullRequests.keepGreen') !== false;
export const pullRequestPollSeconds = (folder: string): number | undefined => editorSetting<number>(folder, 'pullRequests.pollSeconds');
export const pullRequestEscalateAfterMinutes = (folder: string): number | undefined => editorSetting<number>(folder, 'pullRequests.escalateAfterMinutes');
/** Whether the window merges a green, approved pull request (the manifest scopes it to the user, never a workspace). */
export const autoMergesPullRequests = (folder: string): boolean => editorSetting<boolean>(folder, 'pullRequests.autoMerge') === true;
/** Logins of the bots whose reviews and comments may steer an agent (the manifest scopes it to the user, never a workspace). */
export const trustedPullRequestBots = (folder: string): string[] => (editorSetting<unknown[]>(folder, 'pullRequests.trustedBots') ?? []).filter((b): b is string => typeof b === 'string');
