import type { RunStore } from '../store/runStore';
import { NoRunError } from './useCaseErrors';

/** The run a use case acts on: the one named, else the newest run here. */
export function namedOrNewestRun(store: RunStore, runId: string | undefined): string {
  const chosen = runId ?? store.lastRunId();
  if (!chosen) throw new NoRunError('There is no run here');
  return chosen;
}
