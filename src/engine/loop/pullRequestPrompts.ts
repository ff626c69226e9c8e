import type { PlanTask } from '../domain/plan';
import type { CheckResult, Review, ReviewComment } from '../forge/forge';
import { clipMiddle } from '../text/clip';

/** What an agent is shown of one check's output, at most. */
const CHECK_OUTPUT_LIMIT = 12_000;
const ANNOTATION_LIMIT = 50;

/**
 * A pull request fix, briefed as a task: the actor and critic prompts (prompts.ts) then work as
 * for any task, the failing checks or the reviewer's comments being its description.
 */
export function checkFixTask(number: number, branch: string, checks: CheckResult[]): PlanTask {
  return {
    id: `pull-request-${number}`,
    title: `Make the failing check(s) of pull request #${number} pass: ${checks.map((c) => c.name).join(', ')}`,
    description: [
      `The worktree is the pull request's branch ${branch} at the commit CI checked. CI reports:`,
      ...checks.map(describeCheck),
      'Find the cause in the code and fix it. Do not disable, skip or weaken the check or its tests.',
    ].join('\n\n'),
    acceptance: checks.map((c) => `the check "${c.name}" would pass`),
    dependsOn: [],
  };
}

/**
 * A reviewer's requested changes, for the actor of `task` (the task that changed the files they
 * comment on), or for the integration's actor when no task did.
 */
export function reviewFixTask(number: number, branch: string, review: Review, comments: ReviewComment[], task: PlanTask | undefined): PlanTask {
  const asked = [
    review.body.trim() ? `${review.author} wrote:\n${review.body.trim()}` : '',
    ...comments.map((c) => `${c.path}${c.line ? `:${c.line}` : ''} (${c.author}):\n${c.body.trim()}`),
  ].filter(Boolean);
  return {
    id: task?.id ?? `pull-request-${number}`,
    title: task ? `Address the review of "${task.title}" on pull request #${number}` : `Address the review of pull request #${number}`,
    description: [
      task ? `Your task was: ${task.title}\n${task.description}` : '',
      `The worktree is the pull request's branch ${branch}. A reviewer requested changes:`,
      ...asked,
      'Make the changes asked for; where a comment is a question, answer it by making the code clearer. Do not touch unrelated code.',
    ]
      .filter(Boolean)
      .join('\n\n'),
    acceptance: [...(task?.acceptance ?? []), ...comments.map((c) => `${c.path}: ${firstLine(c.body)}`)],
    dependsOn: [],
    ...(comments.length ? { files: [...new Set(comments.map((c) => c.path))] } : {}),
  };
}

/** The task a base-branch conflict resolution stands in for, in the resolution prompt. */
export function conflictTask(number: number, branch: string, base: string, goal: string): PlanTask {
  return {
    id: `pull-request-${number}`,
    title: `Merge ${base} into pull request #${number} (${branch})`,
    description: `The pull request's branch holds the run's work for "${goal}"; ${base} moved on since, and the two conflict.`,
    acceptance: ['both the run\'s work and the base branch\'s changes hold'],
    dependsOn: [],
  };
}

/** The reply posted on a review comment a fix answered. */
export function replyText(commit: string, summary: string): string {
  return `Addressed in ${commit.slice(0, 10)}: ${firstLine(summary) || 'changed as asked'}`;
}

function describeCheck(check: CheckResult): string {
  const notes = check.annotations.slice(0, ANNOTATION_LIMIT).map((a) => `- ${a.path}:${a.line} [${a.level}] ${a.message}`);
  const more = check.annotations.length > ANNOTATION_LIMIT ? [`- … and ${check.annotations.length - ANNOTATION_LIMIT} more`] : [];
  return [
    `Check "${check.name}" failed${check.url ? ` (${check.url})` : ''}.`,
    check.output.trim() ? `Its output:\n\`\`\`\n${clipMiddle(check.output.trim(), CHECK_OUTPUT_LIMIT)}\n\`\`\`` : '',
    notes.length ? `Its annotations:\n${[...notes, ...more].join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

const firstLine = (text: string): string => text.trim().split('\n')[0]!.slice(0, 200);
