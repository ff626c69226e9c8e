import path from 'node:path';
import { ID_MAX_LENGTH, isSafeId } from '../domain/ids';

/** Where everything of one workspace lives on disk, under `<repoRoot>/.taskloom/`. */
export interface TaskloomPaths {
  dir: string;
  stateDb: string;
  lock: string;
  runsDir: string;
}

export interface RunPaths {
  dir: string;
  events: string;
  runJson: string;
  decisions: string;
  /** The run's outcomes in numbers, a cache of its log for `taskloom stats` (runSummaryFile.ts). */
  summary: string;
}

export function taskloomPaths(repoRoot: string): TaskloomPaths {
  const dir = path.join(repoRoot, '.taskloom');
  return { dir, stateDb: path.join(dir, 'state.json'), lock: path.join(dir, 'lock'), runsDir: path.join(dir, 'runs') };
}

export function runPaths(runsDir: string, runId: string): RunPaths {
  assertValidRunId(runId);
  const dir = path.join(runsDir, runId);
  return {
    dir,
    events: path.join(dir, 'events.jsonl'),
    runJson: path.join(dir, 'run.json'),
    decisions: path.join(dir, 'DECISIONS.md'),
    summary: path.join(dir, 'summary.json'),
  };
}

export const isValidRunId = (runId: string): boolean => isSafeId(runId, 'run');

/** A run id becomes a directory name, so anything that could step outside `runs/` is refused. */
export function assertValidRunId(runId: string): void {
  if (!isValidRunId(runId)) {
    throw new Error(`Invalid run id ${JSON.stringify(runId)}: use letters, digits, ".", "_" and "-" (at most ${ID_MAX_LENGTH.run})`);
  }
}
