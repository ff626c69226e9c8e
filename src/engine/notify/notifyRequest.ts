import type { NoticeMessage } from '../text/noticeWords';
import type { NotifyTarget } from './notifyTargets';

/** What is sent to a target: one POST. */
export interface NotifyRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The generic webhook's body, documented in docs/notifications.md: change it only with the docs, in a compatible way. */
export interface WebhookBody {
  source: 'taskloom';
  version: 1;
  run: { id: string; goal: string };
  task: string | null;
  state: string;
  reason: string;
  urgent: boolean;
  link: string | null;
  title: string;
  lines: string[];
}

/** The request `target` wants for `message` of run `runId`, in the target's own format. */
export function notifyRequest(target: NotifyTarget, runId: string, goal: string, message: NoticeMessage): NotifyRequest {
  const text = message.lines.join('\n');
  switch (target.format) {
    case 'webhook': {
      const body: WebhookBody = {
        source: 'taskloom',
        version: 1,
        run: { id: runId, goal },
        task: message.taskId ?? null,
        state: message.state,
        reason: text,
        urgent: message.urgent,
        link: message.link ?? null,
        title: message.title,
        lines: message.lines,
      };
      return { url: target.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    }
    case 'slack': {
      const link = message.link ? `\n<${message.link}|Open the pull request>` : '';
      const body = {
        text: `${message.title}\n${text}`,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: `*${slackEscape(message.title)}*` } },
          { type: 'section', text: { type: 'mrkdwn', text: `${slackEscape(text)}${link}` } },
        ],
      };
      return { url: target.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    }
    case 'ntfy': {
      const headers: Record<string, string> = {
        'content-type': 'text/plain; charset=utf-8',
        // Header values must be Latin-1: ntfy reads RFC 2047 encoded words for the rest.
        title: `=?UTF-8?B?${Buffer.from(message.title).toString('base64')}?=`,
        priority: message.urgent ? 'high' : 'default',
        tags: message.urgent ? 'warning,taskloom' : 'taskloom',
      };
      if (message.link) headers.click = message.link;
      return { url: target.url, headers, body: text };
    }
  }
}

/** Slack's mrkdwn treats &, < and > as markup: a goal or reason is text. */
const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
