import type { TaskMessage } from '../domain/runState';

/** One task's work under way in this drive: its own stop, who stopped it, and when its work ended. */
interface TaskWork {
  controller: AbortController;
  by?: string;
  ended: Promise<void>;
  end: () => void;
}

/**
 * What a person does to one task of a run while it is driven, besides deciding when it waits for
 * them: stop it (its agent or gate is stopped; the rest of the run goes on), or say something to
 * its actor. The drive hands each task's steps `taskSignal`, which aborts with the run's signal or
 * the task's own stop. Only work under way can be stopped: a stop for a task this drive is not
 * working on is refused (false), so a request that waited in the run's inbox never stops the task's
 * later work. The messages themselves are the run's state (TaskView.messages, the ones not
 * delivered wait there); here an actor call at work hears of a new one the moment it is recorded.
 */
export class RunControl {
  private readonly work = new Map<string, TaskWork>();
  private readonly messageListeners = new Map<string, Set<(message: TaskMessage) => void>>();

  constructor(private readonly runSignal: AbortSignal) {}

  /** The task's work in this drive begins: aborted when the run is stopped or this task is (stopTask). */
  taskSignal(taskId: string): AbortSignal {
    let work = this.work.get(taskId);
    if (!work) {
      let end = (): void => undefined;
      const ended = new Promise<void>((resolve) => (end = resolve));
      this.work.set(taskId, (work = { controller: new AbortController(), ended, end }));
    }
    return AbortSignal.any([this.runSignal, work.controller.signal]);
  }

  /** Stops the task's work under way; false when it is not under way in this drive, or was already stopped. */
  stopTask(taskId: string, by: string): boolean {
    const work = this.work.get(taskId);
    if (!work || work.controller.signal.aborted) return false;
    work.by = by;
    work.controller.abort();
    return true;
  }

  /** Who stopped the task in this drive, if someone did (and the run itself was not stopped). */
  stoppedBy(taskId: string): string | undefined {
    if (this.runSignal.aborted) return undefined;
    return this.work.get(taskId)?.by;
  }

  /** Resolves when the task's work under way has ended (at once when none is). */
  settled(taskId: string): Promise<void> {
    return this.work.get(taskId)?.ended ?? Promise.resolve();
  }

  /** The task's work in this drive ended: a stop from before does not stop its next work (a retry, a hand back). */
  release(taskId: string): void {
    const work = this.work.get(taskId);
    this.work.delete(taskId);
    work?.end();
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
}
