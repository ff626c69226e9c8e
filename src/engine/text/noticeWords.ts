import type { Notice } from '../domain/notices';
import { counted } from './counted';
import { oneLine } from './clip';

/** One message for the notices of one run gathered in a burst: what every target format is made from. */
export interface NoticeMessage {
  title: string;
  /** One line per kind of notice, in the order they came. */
  lines: string[];
  /** Urgent when the run waits for the person or failed; ntfy and Slack make those stand out. */
  urgent: boolean;
  /** The run's state in one word, for the webhook's `state`: the last notice's. */
  state: string;
  /** The task of a burst about one task only (the webhook's `task`). */
  taskId?: string;
  /** A pull request's page, when the burst is about one. */
  link?: string;
}

const REASON_LENGTH = 200;

const FINISHED_WORDS: Record<string, string> = {
  completed: 'finished: completed',
  needs_human: 'stopped: it needs you',
  failed: 'failed',
  cancelled: 'was cancelled',
};

/** The message for `notices` (never empty) of run `runId` working towards `goal`. */
export function noticeMessage(runId: string, goal: string, notices: Notice[]): NoticeMessage {
  const needYou = notices.filter((notice) => notice.kind === 'task_needs_you');
  const lines: string[] = [];
  let needYouSaid = false;
  for (const notice of notices) {
    if (notice.kind === 'task_needs_you') {
      if (needYouSaid) continue;
      needYouSaid = true;
      lines.push(
        needYou.length === 1
          ? `Task ${notice.taskId} needs you: ${oneLine(notice.reason, REASON_LENGTH)}`
          : `${counted(needYou.length, 'task needs', 'tasks need')} you: ${needYou.map((n) => n.taskId).join(', ')}`,
      );
    } else {
      lines.push(noticeLine(notice));
    }
  }
  const last = notices[notices.length - 1];
  const aboutTasks = notices.flatMap((notice) => (notice.kind === 'task_needs_you' || notice.kind === 'task_budget_near' ? [notice.taskId] : []));
  const taskIds = new Set(aboutTasks);
  const urgent = notices.some(
    (notice) => notice.kind === 'task_needs_you' || notice.kind === 'plan_ready' || notice.kind === 'pull_request_escalated' ||
      (notice.kind === 'run_finished' && notice.status !== 'completed') || (notice.kind === 'checks_changed' && notice.to === 'red'),
  );
  const link = notices.map((notice) => ('url' in notice ? notice.url : undefined)).find((url) => url !== undefined);
  return {
    title: `Taskloom ${runId}: ${oneLine(goal, 80)}`,
    lines,
    urgent,
    state: stateOf(last),
    taskId: taskIds.size === 1 && aboutTasks.length === notices.length ? [...taskIds][0] : undefined,
    link,
  };
}

function noticeLine(notice: Exclude<Notice, { kind: 'task_needs_you' }>): string {
  switch (notice.kind) {
    case 'plan_ready':
      return `The plan (${counted(notice.tasks, 'task')}) is ready for your approval`;
    case 'run_finished':
      return `The run ${FINISHED_WORDS[notice.status] ?? notice.status}: ${oneLine(notice.summary, REASON_LENGTH)}`;
    case 'checks_changed':
      return notice.to === 'green'
        ? `Pull request #${notice.number}: checks turned green`
        : `Pull request #${notice.number}: checks turned red (${notice.failing.join(', ') || 'a check failed'})`;
    case 'pull_request_escalated':
      return `Pull request #${notice.number} has been red for ${notice.afterMinutes} min and needs you (${notice.failing.join(', ')})`;
    case 'budget_near':
      return `The run spent ${notice.spent}`;
    case 'task_budget_near':
      return `Task ${notice.taskId} spent ${notice.spent}`;
  }
}

function stateOf(notice: Notice): string {
  switch (notice.kind) {
    case 'plan_ready':
      return 'awaiting_approval';
    case 'task_needs_you':
    case 'pull_request_escalated':
      return 'needs_human';
    case 'run_finished':
      return notice.status;
    case 'checks_changed':
      return `checks_${notice.to}`;
    case 'budget_near':
    case 'task_budget_near':
      return 'budget_near';
  }
}
