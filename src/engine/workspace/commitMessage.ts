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
  const lines = [oneLine(subject), ''];
  if (body?.trim()) lines.push(body.trim(), '');
  if (trailers.task) lines.push(`Taskloom-Task: ${trailers.task}`);
  lines.push(`Taskloom-Run: ${trailers.run}`);
  if (trailers.agent) lines.push(`Taskloom-Agent: ${oneLine(trailers.agent)}`);
  if (trailers.attempt !== undefined) lines.push(`Taskloom-Attempt: ${trailers.attempt}`);
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim() || 'Taskloom change';
  return flat.length > SUBJECT_LIMIT ? `${flat.slice(0, SUBJECT_LIMIT - 1)}…` : flat;
}
