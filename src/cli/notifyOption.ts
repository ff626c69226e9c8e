import { notifyTargetsFromEnv, parseNotifyTarget, type NotifyTarget } from '../engine/notify/notifyTargets';

/** `--notify URL`, repeatable: where word of the run goes (docs/notifications.md). */
export const NOTIFY_OPTION = { notify: { type: 'string', multiple: true } } as const;

/**
 * The targets of `--notify` and of TASKLOOM_NOTIFY (whitespace- or comma-separated): an
 * environment variable keeps a URL's token out of the shell's history.
 */
export function notifyTargets(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): NotifyTarget[] {
  const given = [...((values.notify as string[] | undefined) ?? []), ...notifyTargetsFromEnv(env.TASKLOOM_NOTIFY)];
  return [...new Set(given)].map(parseNotifyTarget);
}
