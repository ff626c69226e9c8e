import { criticFindingsOf } from '../report/criticFindings';
import type { RunSession } from '../run/runSession';
import type { EventBatcher } from './eventBatcher';
import type { ServerOutput } from './serverOutput';

/**
 * Sends every event the session emits to the editor (batched), and after each critic verdict
 * the run's findings on files, so the Problems panel follows the reviews. The listener runs
 * inside the engine's emit: it must never throw into it.
 */
export function forwardRunEvents(session: RunSession, folder: string, batcher: EventBatcher, output: ServerOutput): () => void {
  return session.onEvent((event, state) => {
    try {
      batcher.push(folder, event);
      if (event.type === 'critic_verdict') {
        // The findings refer to this verdict's seq: its event goes out first.
        batcher.flushRun(folder, event.runId);
        output.findings({ folder, runId: event.runId, findings: criticFindingsOf(state) });
      }
    } catch (error) {
      output.log(`Could not forward event ${event.seq} of run ${event.runId}: ${(error as Error).stack ?? String(error)}`);
    }
  });
}
