import * as vscode from 'vscode';
import { readNotifyTarget } from '../../engine/domain/notifyTarget';
import { errorText } from '../../engine/domain/taskloomError';
import { describeEntries, NOTIFY_SETTING, notifyEntries, SECRET_PREFIX, secretKey, secretNameOf } from '../notify/notifyTargets';
import type { Services } from '../services';

const NAME = /^[A-Za-z0-9._-]{1,40}$/;

/**
 * Add Notification Target: the URL is typed into a password box, checked by the CLI's rules, kept
 * in VS Code's SecretStorage, and only `secret:NAME` goes into the user's `taskloom.notify`.
 */
export async function addNotificationTarget(services: Services): Promise<string | undefined> {
  const url = await vscode.window.showInputBox({
    title: 'Taskloom: Add Notification Target (1/2)',
    prompt: 'A webhook or Slack incoming webhook URL, https://ntfy.sh/TOPIC or ntfy://HOST/TOPIC; kept in VS Code\'s secret storage, never in settings.json',
    placeHolder: 'https://hooks.slack.com/services/…',
    password: true,
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() ? problemOf(text) : undefined),
  });
  if (!url?.trim()) return undefined;
  const target = readNotifyTarget(url);
  const taken = new Set(notifyEntries().map(secretNameOf).filter((name): name is string => name !== undefined));
  const name = await vscode.window.showInputBox({
    title: 'Taskloom: Add Notification Target (2/2)',
    prompt: `A name for ${target.shown} (${target.format}); settings.json holds "${SECRET_PREFIX}NAME"`,
    value: freeName(`${target.format}-${new URL(target.url).hostname}`, taken),
    ignoreFocusOut: true,
    validateInput: (text) =>
      !NAME.test(text.trim()) ? 'Letters, digits, ".", "_" and "-", at most 40' : taken.has(text.trim()) ? `"${text.trim()}" names another target` : undefined,
  });
  if (!name?.trim()) return undefined;
  await services.context.secrets.store(secretKey(name.trim()), url.trim());
  await updateEntries([...notifyEntries(), `${SECRET_PREFIX}${name.trim()}`]);
  void vscode.window.showInformationMessage(`Taskloom: word of your runs goes to ${target.shown} ("${name.trim()}", kept in VS Code's secret storage).`);
  return name.trim();
}

/** Remove Notification Target: one entry of `taskloom.notify` out of the setting, with its secret. */
export async function removeNotificationTarget(services: Services): Promise<string | undefined> {
  const entries = await describeEntries(services.context.secrets);
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('Taskloom: there is no notification target to remove.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    entries.map((entry) => ({
      label: entry.secretName ?? entry.shown ?? entry.entry,
      description: entry.secretName === undefined ? 'in settings.json' : entry.shown ?? 'its URL is missing from the secret storage',
      entry,
    })),
    { title: 'Taskloom: Remove Notification Target', placeHolder: 'No more word of runs goes to the target you pick' },
  );
  if (!picked) return undefined;
  await updateEntries(notifyEntries().filter((entry) => entry !== picked.entry.entry));
  if (picked.entry.secretName !== undefined) await services.context.secrets.delete(secretKey(picked.entry.secretName));
  return picked.label;
}

function problemOf(text: string): string | undefined {
  try {
    readNotifyTarget(text);
    return undefined;
  } catch (error) {
    return errorText(error as Error);
  }
}

function freeName(wanted: string, taken: Set<string>): string {
  const base = wanted.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 36);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

/** The user's settings: the setting is application-scoped, so a workspace could not hold it anyway. */
const updateEntries = (entries: string[]) => vscode.workspace.getConfiguration('taskloom').update(NOTIFY_SETTING, entries, vscode.ConfigurationTarget.Global);
