import { resumeOutlook } from './resumeOutlook';
import { LIVE_RUN_STATUSES, type RunState, type RunStatus } from './runState';
import { RUN_STATUS_WORDS } from './stateWords';

/**
 * A run's phase as the user sees it: its status, except where no engine drives it. A live status
 * without an engine is a run whose window or engine went away ("stopped", resumable) — unless it
 * has nothing to drive: a plan waiting for a person's approval, or a run whose every task left
 * waits for a person (one being resolved by hand, say), which was not interrupted.
 */
export type RunPhase = RunStatus | 'awaitingApproval' | 'stopped';

/** `state`: the run's state when it is loaded (without it, a planning run is taken as drafted). */
export function runPhase(status: RunStatus, driven: boolean, state?: RunState): RunPhase {
  if (driven || !LIVE_RUN_STATUSES.has(status)) return status;
  if (status === 'planning') return (state?.plan.tasks.length ?? 1) > 0 ? 'awaitingApproval' : 'stopped';
  return state && resumeOutlook(state).kind === 'waitsForYou' ? 'needs_human' : 'stopped';
}

/** The phase in the one vocabulary of run states: the tree, the status bar, the run view and the chat say these. */
export const RUN_PHASE_WORDS: Record<RunPhase, string> = {
  ...RUN_STATUS_WORDS,
  awaitingApproval: 'plan awaits your approval',
  stopped: 'stopped',
};
