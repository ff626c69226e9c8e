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
 * How a run that cannot be resumed starts again (its menus offer each way): by planning its goal
 * again, always; from its plan (`withPlan`: Start Again with This Plan), and from the plan
 * planning rejected (`rejectedPlan`: Open Rejected Plan), where it has them.
 */
export interface StartAgain {
  withPlan: boolean;
  rejectedPlan: boolean;
}

/** How the run starts again; undefined for a run that is resumed, or goes on, instead. */
export function startAgainOf(entry: RunEntry): StartAgain | undefined {
  const outlook = resumeOutlookOf(entry);
  if (outlook?.kind !== 'startAgain') return undefined;
  return { withPlan: outlook.withPlan, rejectedPlan: entry.state?.rejectedPlan !== undefined };
}
