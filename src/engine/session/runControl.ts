import type { TaskMessage } from '../domain/runState';

/**
 * What a person does to one task of a run while it is driven, besides deciding when it waits for
 * them: stop it (its agent or gate is stopped; the rest of the run goes on), or say something to
 * its actor. The drive hands each task's steps `taskSignal`, which aborts with the run's signal or
 * the task's own stop. The messages themselves are the run's state (TaskView.messages, the ones
 * not delivered wait there); here an actor call at work hears of a new one the moment it is recorded.
 */
export class RunControl {
  private readonly stops = new Map<string, { controller: AbortController; by?: string }>();
  private readonly messageListeners = new Map<string, Set<(message: TaskMessage) => void>>();

  constructor(private readonly runSignal: AbortSignal) {}

  /** Aborted when the run is stopped or this task is (stopTask). */
  taskSignal(taskId: string): AbortSignal {
    return AbortSignal.any([this.runSignal, this.stopOf(taskId).controller.signal]);
  }

  /** Stops the task's work under way; false when it was already stopped. */
  stopTask(taskId: string, by: string): boolean {
    const stop = this.stopOf(taskId);
    if (stop.controller.signal.aborted) return false;
    stop.by = by;
    stop.controller.abort();
    return true;
  }

  /** Who stopped the task in this drive, if someone did (and the run itself was not stopped). */
  stoppedBy(taskId: string): string | undefined {
    if (this.runSignal.aborted) return undefined;
    return this.stops.get(taskId)?.by;
  }

  /** The task is taken up again (a retry, a hand back): a stop from before does not stop its new work. */
  release(taskId: string): void {
    this.stops.delete(taskId);
  }

  /** A message for the task was recorded: an actor call of the task that takes input mid-turn hears it. */
  messageArrived(taskId: string, message: TaskMessage): void {
    for (const listener of [...(this.messageListeners.get(taskId) ?? [])]) listener(message);
  }

  /** Hears each message recorded for the task from now on, until the returned function is called. */
  onMessage(taskId: string, listener: (message: TaskMessage) => void): () => void {
    let listeners = this.messageListeners.get(taskId);
    if (!listeners) this.messageListeners.set(taskId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.messageListeners.delete(taskId);
    };
  }

  private stopOf(taskId: string): { controller: AbortController; by?: string } {
    let stop = this.stops.get(taskId);
    if (!stop) this.stops.set(taskId, (stop = { controller: new AbortController() }));
    return stop;
  }
}
