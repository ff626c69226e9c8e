import { LIVE_RUN_STATUSES, type RunStatus } from './runState';
import { RUN_STATUS_WORDS } from './stateWords';

/**
 * A run's phase as the user sees it: its status, except where no engine drives it. A live status
 * without an engine is a run whose window or engine went away ("stopped", resumable), or a plan
 * that waits for a person's approval, which nothing has to drive.
 */
export type RunPhase = RunStatus | 'awaitingApproval' | 'stopped';

/** `planTasks`: how many tasks the run's plan has (undefined: not known yet, taken as drafted). */
export function runPhase(status: RunStatus, driven: boolean, planTasks: number | undefined): RunPhase {
  if (driven || !LIVE_RUN_STATUSES.has(status)) return status;
  if (status === 'planning') return (planTasks ?? 1) > 0 ? 'awaitingApproval' : 'stopped';
  return 'stopped';
}

/** The phase in the one vocabulary of run states: the tree, the status bar, the run view and the chat say these. */
export const RUN_PHASE_WORDS: Record<RunPhase, string> = {
  ...RUN_STATUS_WORDS,
  awaitingApproval: 'plan awaits your approval',
  stopped: 'stopped',
};
