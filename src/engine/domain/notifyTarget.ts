import { TaskloomError } from './taskloomError';

export type NotifyFormat = 'webhook' | 'slack' | 'ntfy';

/** Where word of a run goes: a URL that may hold a token, so it is a secret; `shown` is what messages may say of it. */
export interface NotifyTarget {
  format: NotifyFormat;
  url: string;
  shown: string;
}

/** A target as read, with the parts of its URL a token may hide in (to be hidden from everything written). */
export interface ReadNotifyTarget extends NotifyTarget {
  secretParts: string[];
}

const FORMATS: readonly NotifyFormat[] = ['webhook', 'slack', 'ntfy'];

export class NotifyTargetError extends TaskloomError {
  constructor(given: string, why: string) {
    super(
      'bad_input',
      `Cannot send notifications to "${shownUrl(given)}": ${why}`,
      'Give an https:// URL (a webhook, a Slack incoming webhook), ntfy://HOST/TOPIC, or FORMAT+URL with FORMAT webhook, slack or ntfy; docs/notifications.md.',
    );
    this.name = 'NotifyTargetError';
  }
}

/**
 * Reads a target (pure, so the editor checks what is typed with the CLI's rules):
 * `https://hooks.slack.com/…` is Slack, `https://ntfy.sh/TOPIC` and `ntfy://HOST/TOPIC` (https)
 * are ntfy, any other http(s) URL a generic webhook; `slack+`, `ntfy+` or `webhook+` before a URL
 * names the format outright (a self-hosted ntfy at `ntfy+https://ntfy.example.com/alerts`).
 */
export function readNotifyTarget(given: string): ReadNotifyTarget {
  const text = given.trim();
  const prefixed = /^([a-z]+)\+(https?:\/\/.*)$/i.exec(text);
  let format: NotifyFormat | undefined;
  let urlText = text;
  if (prefixed) {
    const named = prefixed[1].toLowerCase();
    if (!FORMATS.includes(named as NotifyFormat)) throw new NotifyTargetError(text, `"${named}" is not a notification format`);
    format = named as NotifyFormat;
    urlText = prefixed[2];
  } else if (/^ntfy:\/\//i.test(text)) {
    format = 'ntfy';
    urlText = `https://${text.slice('ntfy://'.length)}`;
  }
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    throw new NotifyTargetError(text, 'it is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new NotifyTargetError(text, `${url.protocol} is not http or https`);
  format ??= url.hostname === 'hooks.slack.com' ? 'slack' : url.hostname === 'ntfy.sh' ? 'ntfy' : 'webhook';
  if (format === 'ntfy' && url.pathname.split('/').filter(Boolean).length !== 1) {
    throw new NotifyTargetError(text, 'an ntfy target is a server and one topic, as in ntfy://ntfy.sh/my-topic');
  }
  return { format, url: url.href, shown: shownUrl(url.href), secretParts: secretParts(url, format) };
}

/**
 * Every part of a URL a token may hide in: the whole, its path, its query values, its user info,
 * and the path segments that look like tokens (a digit, or 16 characters and more), so a word
 * such as Slack's `services` is not hidden from every text. An ntfy topic is the secret itself.
 */
function secretParts(url: URL, format: NotifyFormat): string[] {
  const segments = url.pathname.split('/').filter((segment) => format === 'ntfy' || /\d/.test(segment) || segment.length >= 16);
  const parts = [url.href, url.pathname, url.search, url.username, url.password, ...segments, ...url.searchParams.values()];
  return parts.filter((part) => part.length > 0);
}

/** What a message may say of a target: its scheme and host, never its path or query, where tokens live. */
export function shownUrl(text: string): string {
  const match = /^([a-z+]+:\/\/)?([^/?#@]*@)?([^/?#]*)/i.exec(text.trim());
  return `${match?.[1] ?? ''}${match?.[3] ?? ''}/…`;
}
