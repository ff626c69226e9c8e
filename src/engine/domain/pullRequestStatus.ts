import type { CheckStatus, ReviewVerdict } from './events';
import type { PullRequestRecord, RunState } from './runState';
import { counted } from '../text/counted';

/** A pull request's checks in the words every view uses: "checks pass", "failing: lint", "2 check(s) running", "no checks". */
export function checksWords(checks: ReadonlyArray<{ name: string; status: CheckStatus }>): string {
  const failing = checks.filter((c) => c.status === 'failure').map((c) => c.name);
  const pending = checks.filter((c) => c.status === 'pending').length;
  if (checks.length === 0) return 'no checks';
  if (failing.length) return `failing: ${failing.join(', ')}`;
  return pending ? `${counted(pending, 'check')} running` : 'checks pass';
}

export const REVIEW_WORDS: Record<ReviewVerdict, string> = { approved: 'approved', changes_requested: 'changes requested', none: 'no decisive review' };

/** Open as far as anyone saw: neither observed merged or closed, nor seen merged by a watch. */
export const isOpenAsSeen = (pr: PullRequestRecord): boolean =>
  pr.watch?.outcome !== 'merged' && pr.observed?.state !== 'merged' && pr.observed?.state !== 'closed';

/** Pull requests still to keep green: open as far as anyone saw, and no watch saw them to an end since they were last pushed. */
export function pullRequestsToWatch(state: RunState): PullRequestRecord[] {
  return Object.values(state.pullRequests).filter((pr) => !pr.watch && isOpenAsSeen(pr));
}
