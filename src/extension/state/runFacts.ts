import type { RunFacts } from '../../engine/domain/runActions';
import type { RunEntry } from './runsModel';

/**
 * What the actions' rules (domain/runActions.ts) know of a run in this window: its listing, its
 * state once loaded, and whether its repository has the remote pull requests are pushed to.
 */
export function runFactsOf(entry: RunEntry, hasRemote?: boolean): RunFacts {
  const { summary, state } = entry;
  return {
    status: summary.status,
    driven: summary.active,
    ...(state ? { state } : {}),
    total: summary.total,
    unfinished: summary.total - summary.merged - summary.skipped,
    planApproved: summary.planApproved,
    ...(hasRemote !== undefined ? { hasRemote } : {}),
  };
}
