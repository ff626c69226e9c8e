import type { TaskloomEngine } from '../run/engine';
import { describeWhatWouldRun, UnknownRunError } from '../run/runProvenance';
import type { RunSession } from '../session/runSession';

/**
 * A run not started by Taskloom on this machine (a `.taskloom/` that came with the repository) is
 * driven only once the user saw what would run and agreed (`trustRun`); it is known from then on.
 * Without their say-so this throws UnknownRunError with what would run, for the door to ask with.
 */
export function assertRunTrusted(engine: TaskloomEngine, session: RunSession, trustRun: boolean): void {
  if (engine.isKnownRun(session)) return;
  if (!trustRun) {
    const { state } = session;
    const claimedHost = typeof state.createdBy?.host === 'string' ? state.createdBy.host : 'unknown';
    throw new UnknownRunError(session.runId, describeWhatWouldRun(state), 'Check what it would run; go on only if you trust this repository.', claimedHost);
  }
  engine.trustRun(session);
}
