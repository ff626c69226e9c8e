import { resumeOutlook, type ResumeOutlook } from '../../engine/domain/resumeOutlook';
import { runPhase } from '../tree/presentation';
import type { RunEntry } from './runsModel';

const STOPPED_PHASES = new Set(['stopped', 'paused', 'needs_human', 'failed', 'cancelled']);

/**
 * What Resume would do for a run in this window, or undefined when nobody may resume it now (an
 * engine drives it, it is complete, or its plan waits for approval). Without a loaded state the
 * phase alone decides: the engine answers with a clear error if there is nothing to drive.
 */
export function resumeOutlookOf(entry: RunEntry): ResumeOutlook | undefined {
  if (!STOPPED_PHASES.has(runPhase(entry.summary, entry.state))) return undefined;
  return entry.state ? resumeOutlook(entry.state) : { kind: 'works', tasks: entry.summary.total - entry.summary.merged - entry.summary.skipped };
}

/** The one answer to "would Resume work on this run?", for commands, menus, prompts and rows. */
export const isResumable = (entry: RunEntry): boolean => resumeOutlookOf(entry)?.kind === 'works';
