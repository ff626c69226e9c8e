import type { DecisionFactOf } from '../domain/decisionFact';
import type { IssueCommentLeftOut } from '../domain/events';
import { counted } from './counted';
import { quoteAsData } from './untrustedText';

/** What the goal is made of: the issue's text and the comments of people with write access, as the forge gave them. */
export interface IssueGoalSource {
  repo: string;
  number: number;
  title: string;
  author: string;
  body: string;
  comments: Array<{ author: string; body: string }>;
}

/**
 * The run's goal from an issue: its title on the first line (the pull request's title), then the
 * issue's body and each trusted comment quoted as data with its author. The fences keep what
 * people wrote as text to work from: it cannot close them and speak as Taskloom.
 */
export function issueGoalText(source: IssueGoalSource): string {
  const title = quoteAsData(source.title).split('\n').slice(1, -1).join(' ').trim() || `Issue #${source.number}`;
  const parts = [title, '', `From issue ${source.repo}#${source.number}, opened by @${source.author}:`, quoteAsData(source.body || '(no description)')];
  for (const comment of source.comments) parts.push('', `Comment by @${comment.author}:`, quoteAsData(comment.body));
  return parts.join('\n');
}

/** Who wrote the comments left out, for a person: "2 comments left out (no write access): @a, @b". */
export function leftOutWords(leftOut: readonly IssueCommentLeftOut[]): string {
  const authors = [...new Set(leftOut.map((c) => `@${c.author}`))];
  return `${counted(leftOut.length, 'comment')} left out, by people without write access: ${authors.join(', ')}`;
}

/** The ledger's line for a run started from an issue. */
export function runIssueWords(f: DecisionFactOf<'run_issue'>): { summary: string; details?: string[] } {
  const confirmed = f.labelledBy ? `labelled by @${f.labelledBy}, who has write access` : 'confirmed by a person';
  const opener = f.authorTrusted ? `@${f.author}` : `@${f.author} (no write access; ${confirmed})`;
  const label = f.authorTrusted && f.labelledBy ? `; labelled by @${f.labelledBy}` : '';
  const used = f.usedComments.length ? `, with ${counted(f.usedComments.length, 'comment')} by ${[...new Set(f.usedComments)].map((a) => `@${a}`).join(', ')}` : '';
  return {
    summary: `Goal from issue ${f.repo}#${f.number}, opened by ${opener}${used}${label}`,
    ...(f.leftOut.length ? { details: [leftOutWords(f.leftOut)] } : {}),
  };
}
