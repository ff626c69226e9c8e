import * as vscode from 'vscode';
import { readNotifyTarget, shownUrl } from '../../engine/domain/notifyTarget';
import { errorText } from '../../engine/domain/taskloomError';

/** The setting: plain URLs, and `secret:NAME` for a URL kept in VS Code's SecretStorage. */
export const NOTIFY_SETTING = 'notify';
export const SECRET_PREFIX = 'secret:';

/** The SecretStorage key of the target named `name`. */
export const secretKey = (name: string): string => `taskloom.notify.${name}`;

/** One entry of the setting as the editor shows it: never the URL, only its scheme and host. */
export interface NotifyEntry {
  /** As written in the setting. */
  entry: string;
  /** The secret's name, for a `secret:` entry. */
  secretName?: string;
  /** Scheme and host of its URL; undefined when a secret is missing. */
  shown?: string;
}

/** The setting as the user set it; VS Code reads it from user settings only (application scope). */
export function notifyEntries(): string[] {
  const value = vscode.workspace.getConfiguration('taskloom').get<unknown[]>(NOTIFY_SETTING) ?? [];
  return value.filter((entry): entry is string => typeof entry === 'string' && entry.trim().length > 0).map((entry) => entry.trim());
}

export function secretNameOf(entry: string): string | undefined {
  return entry.startsWith(SECRET_PREFIX) ? entry.slice(SECRET_PREFIX.length) : undefined;
}

/** Every entry of the setting, with what the picker may say of it. */
export async function describeEntries(secrets: vscode.SecretStorage): Promise<NotifyEntry[]> {
  return Promise.all(
    notifyEntries().map(async (entry) => {
      const secretName = secretNameOf(entry);
      const url = secretName === undefined ? entry : await secrets.get(secretKey(secretName));
      return { entry, ...(secretName !== undefined ? { secretName } : {}), ...(url ? { shown: shownUrl(url) } : {}) };
    }),
  );
}

/**
 * The URLs the engine sends word to: each `secret:` entry looked up, each checked by the CLI's
 * rules. What cannot be used is said in `problems` (never with its URL) and left out.
 */
export async function resolveNotifyTargets(secrets: vscode.SecretStorage): Promise<{ urls: string[]; problems: string[] }> {
  const urls: string[] = [];
  const problems: string[] = [];
  for (const entry of notifyEntries()) {
    const secretName = secretNameOf(entry);
    const url = secretName === undefined ? entry : await secrets.get(secretKey(secretName));
    if (url === undefined) {
      problems.push(`the notification target "${secretName}" has no URL in this machine's secret storage; remove it and add it again with Taskloom: Add Notification Target…`);
      continue;
    }
    try {
      readNotifyTarget(url);
      urls.push(url);
    } catch (error) {
      problems.push(errorText(error as Error));
    }
  }
  return { urls, problems };
}
