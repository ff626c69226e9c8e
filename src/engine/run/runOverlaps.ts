import type { OverlapPair } from '../domain/events';
import type { RunState } from '../domain/runState';
import { predictOverlaps } from '../schedule/overlap';
import { Git } from '../workspace/git';
import { splitNul } from '../workspace/gitQueries';
import type { RepoLocation } from '../workspace/worktreeManager';

/**
 * The overlaps a run's plan predicts from its files hints, matched against the files of the
 * run's base commit (for globs). What the CLI and the editor show at plan approval; the run
 * records the same prediction (overlaps_predicted) when it starts.
 */
export async function predictRunOverlaps(state: RunState, repo: Pick<RepoLocation, 'root' | 'gitObserver'>): Promise<OverlapPair[]> {
  if ((state.config.overlap ?? 'off') === 'off') return [];
  const files = splitNul((await new Git(repo.root, { observer: repo.gitObserver }).run(['ls-tree', '-r', '-z', '--name-only', state.baseCommit])).stdout);
  return predictOverlaps(state.plan.tasks, files);
}
