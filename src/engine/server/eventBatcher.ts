import type { RunEvent } from '../domain/events';
import type { EventsParams } from '../../protocol/engineProtocol';

/** How long events wait for company before they are sent. */
export const EVENT_BATCH_MS = 50;

/**
 * Collects the events of each run and sends them in one notification per run at most every
 * EVENT_BATCH_MS, and at once when the run ends or pauses (so the editor is never left showing
 * a run as busy). Each run's events go out in seq order.
 */
export class EventBatcher {
  private readonly pending = new Map<string, EventsParams>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (params: EventsParams) => void,
    private readonly intervalMs = EVENT_BATCH_MS,
  ) {}

  push(folder: string, event: RunEvent): void {
    const key = batchKey(folder, event.runId);
    let batch = this.pending.get(key);
    if (!batch) {
      batch = { folder, runId: event.runId, events: [] };
      this.pending.set(key, batch);
    }
    batch.events.push(event);
    if (event.type === 'run_finished' || event.type === 'run_paused') {
      this.flushRun(folder, event.runId);
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushAll();
    }, this.intervalMs);
  }

  /** Sends what is waiting for one run now (before a notification that must follow its events). */
  flushRun(folder: string, runId: string): void {
    const key = batchKey(folder, runId);
    const batch = this.pending.get(key);
    if (!batch) return;
    this.pending.delete(key);
    this.send(batch);
  }

  flushAll(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const batch of batches) this.send(batch);
  }
}

const batchKey = (folder: string, runId: string): string => `${folder}\0${runId}`;
