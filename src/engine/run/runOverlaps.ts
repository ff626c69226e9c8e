import type { OverlapPair } from '../domain/events';
import type { RunState } from '../domain/runState';
import { predictOverlaps } from '../schedule/overlap';
import { createGit } from '../workspace/git';
import { splitNul } from '../workspace/gitQueries';

/**
 * The overlaps a run's plan predicts from its files hints, matched against the files of the
 * run's base commit (for globs). What the CLI and the editor show at plan approval; the run
 * records the same prediction (overlaps_predicted) when it starts.
 */
export async function predictRunOverlaps(state: RunState, repoRoot: string): Promise<OverlapPair[]> {
  if ((state.config.overlap ?? 'off') === 'off') return [];
  const files = splitNul(await createGit(repoRoot).raw(['ls-tree', '-r', '-z', '--name-only', state.baseCommit]));
  return predictOverlaps(state.plan.tasks, files);
}
