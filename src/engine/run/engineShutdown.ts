import type { RunEndStatus } from '../domain/events';

/**
 * The abort reason when the process driving a run is going away (the editor window closes or
 * reloads), as opposed to a user's Cancel: the run is interrupted, not cancelled, so it stays
 * unfinished and the next window offers to resume it.
 */
export class EngineShutdown extends Error {
  override readonly name = 'EngineShutdown';
}

/** What the log says of a run a shutdown stopped: it stays unfinished, for the next process to resume. */
export const interruptedWarning = (reason: string) => ({ type: 'warning', message: `the run was interrupted (${reason}); resume it to continue` }) as const;

export const isShutdown = (signal: AbortSignal): boolean => signal.aborted && signal.reason instanceof EngineShutdown;

/** How a drive ended: a run end status, or interrupted by a shutdown (nothing recorded as the end). */
export type DriveOutcome = RunEndStatus | 'interrupted';
