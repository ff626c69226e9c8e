import { resumeOutlookOfRun, runActionRefusal } from '../../engine/domain/runActions';
import type { ResumeOutlook } from '../../engine/domain/resumeOutlook';
import { runFactsOf } from './runFacts';
import type { RunEntry } from './runsModel';

/**
 * What Resume would do for a run in this window, or undefined when nobody may resume it now (an
 * engine drives it, it is complete, or its plan waits for approval): domain/runActions.ts decides,
 * from its state once loaded, else from its listing.
 */
export const resumeOutlookOf = (entry: RunEntry): ResumeOutlook | undefined => resumeOutlookOfRun(runFactsOf(entry));

/** The one answer to "would Resume work on this run?", for commands, menus, prompts and rows (domain/runActions.ts). */
export const isResumable = (entry: RunEntry): boolean => runActionRefusal('resume', runFactsOf(entry)) === undefined;

/**
 * How a run that cannot be resumed starts again, as context value flags for its menus:
 * `.startAgain` (Plan Again), `.withPlan` (Start Again with This Plan), `.rejectedPlan` (Open
 * Rejected Plan); empty for any other run.
 */
export function startAgainFlags(entry: RunEntry): string {
  const outlook = resumeOutlookOf(entry);
  if (outlook?.kind !== 'startAgain') return '';
  return `.startAgain${outlook.withPlan ? '.withPlan' : ''}${entry.state?.rejectedPlan !== undefined ? '.rejectedPlan' : ''}`;
}
