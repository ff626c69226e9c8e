import type { ResumeOutlook } from '../../engine/domain/resumeOutlook';
import { isStoppedPhase, stoppedRunOutlook } from '../../engine/domain/runPhase';
import { runPhase } from '../tree/presentation';
import type { RunEntry } from './runsModel';

/**
 * What Resume would do for a run in this window, or undefined when nobody may resume it now (an
 * engine drives it, it is complete, or its plan waits for approval). Without a loaded state the
 * list entry decides: a plan never approved is started again, else the engine answers with a
 * clear error if there is nothing to drive.
 */
export function resumeOutlookOf(entry: RunEntry): ResumeOutlook | undefined {
  if (entry.state) return stoppedRunOutlook(entry.state, entry.summary.active);
  const { summary } = entry;
  if (!isStoppedPhase(runPhase(summary, undefined))) return undefined;
  if (!summary.planApproved) return { kind: 'startAgain', why: 'its plan was never approved', withPlan: summary.total > 0 };
  return { kind: 'works', tasks: summary.total - summary.merged - summary.skipped };
}

/** The one answer to "would Resume work on this run?", for commands, menus, prompts and rows. */
export const isResumable = (entry: RunEntry): boolean => resumeOutlookOf(entry)?.kind === 'works';

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
