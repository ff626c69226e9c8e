import type { RunSession } from '../session/runSession';
import type { EventBatcher } from './eventBatcher';
import type { ServerOutput } from './serverOutput';

/**
 * Sends every event the session emits to the editor (batched); the editor folds them, Problems
 * panel included. The listener runs inside the engine's emit: it must never throw into it.
 */
export function forwardRunEvents(session: RunSession, folder: string, batcher: EventBatcher, output: ServerOutput): () => void {
  return session.onEvent((event) => {
    try {
      batcher.push(folder, event);
    } catch (error) {
      output.log(`Could not forward event ${event.seq} of run ${event.runId}: ${(error as Error).stack ?? String(error)}`);
    }
  });
}
