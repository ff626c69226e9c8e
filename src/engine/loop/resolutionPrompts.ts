import type { PlanTask } from '../domain/plan';
import { fenced } from '../text/untrustedText';

export interface ConflictBrief {
  goal: string;
  task: PlanTask;
  files: Array<{ path: string; text: string }>;
  /** This task's own change to the conflicted files. */
  ours: string;
  /** The merged tasks whose changes to those files it meets (none when the run's base changed them). */
  theirs: PlanTask[];
  /** Integration's change to the conflicted files since the task started, whoever made it. */
  theirsDiff: string;
  humanNote?: string;
}

const bullet = (lines: string[]): string => lines.map((l) => `- ${l}`).join('\n');
const fence = (lang: string, text: string): string => fenced(lang, text.trimEnd() || '(nothing)');
const describe = (t: PlanTask): string =>
  [`Task ${t.id}: ${t.title}`, t.description, t.acceptance.length ? `Acceptance criteria:\n${bullet(t.acceptance)}` : ''].filter(Boolean).join('\n');

/** What the agent resolving a merge conflict is told: both intents, both changes, the files with their markers. */
export function resolvePrompt(brief: ConflictBrief): string {
  const parts = [
    `You are resolving a merge conflict in one task of a larger goal: "${brief.goal}".`,
    `This task's work passed its tests and review, but it conflicts with work already merged into the integration branch. ` +
      'Your worktree is in the middle of that merge: the conflicted files below hold conflict markers.',
    `This task (ours):\n${describe(brief.task)}`,
    brief.theirs.length
      ? `The merged work it meets (theirs):\n${brief.theirs.map(describe).join('\n\n')}`
      : 'The merged side was changed by earlier work in the integration branch.',
    `Our change to the conflicted files:\n${fence('diff', brief.ours)}`,
    `Their change to the conflicted files:\n${fence('diff', brief.theirsDiff)}`,
    ...brief.files.map((f) => `${f.path} (with conflict markers):\n${fence('', f.text)}`),
    'Resolve every conflict so that both tasks\' intents hold: keep both changes where they are compatible, combine them where they touch the same lines. ' +
      'Remove every conflict marker. Do not drop the other side\'s work and do not weaken tests. Do not commit; Taskloom commits the resolution and runs the gate and a review.',
  ];
  if (brief.humanNote) parts.push(`A human looked at this conflict and says:\n${brief.humanNote}`);
  return parts.join('\n\n');
}

export interface ResolutionReview {
  task: PlanTask;
  files: string[];
  /** The resolution measured against the task's own approved work (what integration brought in, as resolved). */
  againstOurs: string;
  /** Against the integration commit it merged (what the task adds to the merged work). */
  againstTheirs: string;
}

/** The critic's brief for a resolution: the same rubric, on a merge, against both parents. */
export function resolutionReviewPrompt(review: ResolutionReview): string {
  return [
    `Review a merge-conflict resolution for task ${review.task.id}: ${review.task.title}`,
    review.task.description,
    `The task's approved work conflicted with the integration branch in ${review.files.join(', ')}; an agent resolved it. ` +
      'Check that the resolution keeps both sides\' intent: nothing of the merged work is lost, the task still does what it should, no conflict marker is left.',
    `The resolved result against the integration branch it merged (what this task adds to it):\n${fence('diff', review.againstTheirs)}`,
    `The resolved result against the task's own approved work (what the merge brought in, as resolved):\n${fence('diff', review.againstOurs)}`,
  ].join('\n\n');
}
