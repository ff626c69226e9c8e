import { resumeOutlookOfRun, runActionRefusal } from '../../engine/domain/runActions';
import type { ResumeOutlook } from '../../engine/domain/resumeOutlook';
import { runFactsOf } from './runFacts';
import type { RunEntry } from './runsModel';

/**
 * What Resume would do for a run in this window, or undefined when nobody may resume it now (an
 * engine drives it, it is complete, its plan waits for approval or was never approved). Without a
 * loaded state the listing decides: the engine answers with a clear error if there is nothing to drive.
 */
export function resumeOutlookOf(entry: RunEntry): ResumeOutlook | undefined {
  const run = runFactsOf(entry);
  const refusal = runActionRefusal('resume', run);
  if (!refusal) return resumeOutlookOfRun(run);
  return refusal.kind === 'resume' ? refusal.outlook : undefined;
}

/** The one answer to "would Resume work on this run?", for commands, menus, prompts and rows (domain/runActions.ts). */
export const isResumable = (entry: RunEntry): boolean => runActionRefusal('resume', runFactsOf(entry)) === undefined;
