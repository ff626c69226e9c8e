import { oneLine } from '../text/clip';

/**
 * Commit messages a reviewer wants: the subject says what the change is (the task's title, or
 * the run's goal), and what Taskloom knows about it goes into git trailers, which `git log
 * --format=%(trailers)` and `git interpret-trailers` read back.
 */
export interface CommitTrailers {
  task?: string;
  run: string;
  /** The agent (and model) that made the change. */
  agent?: string;
  attempt?: number;
}

const SUBJECT_LIMIT = 72;

export function commitMessage(subject: string, trailers: CommitTrailers, body?: string): string {
  const lines = [subjectLine(subject), ''];
  if (body?.trim()) lines.push(body.trim(), '');
  if (trailers.task) lines.push(`Taskloom-Task: ${trailers.task}`);
  lines.push(`Taskloom-Run: ${trailers.run}`);
  if (trailers.agent) lines.push(`Taskloom-Agent: ${subjectLine(trailers.agent)}`);
  if (trailers.attempt !== undefined) lines.push(`Taskloom-Attempt: ${trailers.attempt}`);
  return `${lines.join('\n')}\n`;
}

const subjectLine = (text: string): string => oneLine(text.trim() || 'Taskloom change', SUBJECT_LIMIT);
