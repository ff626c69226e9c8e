import type { PullRequestRecord, RunState } from './runState';

/** Open as far as anyone saw: neither observed merged or closed, nor seen merged by a watch. */
export const isOpenAsSeen = (pr: PullRequestRecord): boolean =>
  pr.watch?.outcome !== 'merged' && pr.observed?.state !== 'merged' && pr.observed?.state !== 'closed';

/**
 * Pull requests still to keep green: open as far as anyone saw, and not handed to a person since
 * they were last pushed. One a `watch --once` saw green is still watched: green is not the end.
 */
export function pullRequestsToWatch(state: RunState): PullRequestRecord[] {
  return Object.values(state.pullRequests).filter((pr) => pr.watch?.outcome !== 'needs_human' && isOpenAsSeen(pr));
}

/** Red long enough with no progress (no new head) and not yet escalated in this red stretch: `afterMs` undefined or 0 never escalates. */
export function escalationDue(pr: PullRequestRecord, now: number, afterMs: number | undefined): boolean {
  if (!afterMs || !pr.red || pr.red.escalated) return false;
  return now - Date.parse(pr.red.since) >= afterMs;
}
