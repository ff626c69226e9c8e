import type { CheckStatus, MergeMethod, ReviewVerdict } from '../domain/events';
import { counted } from './counted';

/** A pull request's checks in the words every view uses: "checks pass", "failing: lint", "2 checks running", "no checks". */
export function checksWords(checks: ReadonlyArray<{ name: string; status: CheckStatus }>): string {
  const failing = checks.filter((c) => c.status === 'failure').map((c) => c.name);
  const pending = checks.filter((c) => c.status === 'pending').length;
  if (checks.length === 0) return 'no checks';
  if (failing.length) return `failing: ${failing.join(', ')}`;
  return pending ? `${counted(pending, 'check')} running` : 'checks pass';
}

export const REVIEW_WORDS: Record<ReviewVerdict, string> = { approved: 'approved', changes_requested: 'changes requested', none: 'no decisive review' };

export const MERGE_METHOD_WORDS: Record<MergeMethod, string> = { merge: 'a merge commit', squash: 'squashed', rebase: 'rebased' };
