import type { RunEvent } from '../domain/events';

/** The commits a critic review compared, and whether the log recorded them or they were worked out from it. */
export interface ReviewedRange {
  base: string;
  head: string;
  /** 'recorded': the verdict names them; 'reconstructed': an older log, read back from the task's commits before the review. */
  source: 'recorded' | 'reconstructed';
  review: number;
}

/**
 * What the critic's review at `seq` saw, from the log up to it. A verdict written since the commit
 * was recorded names its range; for an older one, the task's base then (its worktree's start or
 * its last sync with integration) and its last commit before the review are what the critic read,
 * since the work is committed before it is gated and reviewed. Undefined when `seq` is not a
 * review of `taskId`, or an older log does not tell.
 */
export function reviewedRange(eventsUpToSeq: readonly RunEvent[], taskId: string, seq: number): ReviewedRange | undefined {
  let base: string | undefined;
  let head: string | undefined;
  for (const event of eventsUpToSeq) {
    if (event.seq > seq) break;
    if (!('taskId' in event) || event.taskId !== taskId) continue;
    if (event.type === 'worktree_prepared') base = head = event.baseCommit;
    // The sync's own merge commit is not in the log: until the task commits again, its head is unknown.
    else if (event.type === 'task_synced') [base, head] = [event.integrationCommit, undefined];
    else if (event.type === 'work_committed') head = event.commit;
    else if (event.type === 'critic_verdict' && event.seq === seq) {
      if (event.base && event.commit) return { base: event.base, head: event.commit, source: 'recorded', review: event.review };
      if (!base || !head) return undefined;
      return { base, head, source: 'reconstructed', review: event.review };
    }
  }
  return undefined;
}
