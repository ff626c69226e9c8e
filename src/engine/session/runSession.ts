import type { RunEvent, RunEventBody } from '../domain/events';
import type { RunState, TaskView } from '../domain/runState';
import { TaskStateMachine } from '../domain/taskStateMachine';
import type { TaskEvent } from '../domain/taskStates';
import type { RunStore } from '../store/runStore';

export type RunListener = (event: RunEvent, state: RunState) => void;

/**
 * The live run: every change goes through `emit`, which makes the event durable in the
 * store before anything acts on it, then tells the listeners (CLI progress, engine server).
 */
export class RunSession {
  private readonly listeners = new Set<RunListener>();

  constructor(
    readonly store: RunStore,
    readonly runId: string,
  ) {}

  get state(): RunState {
    return this.store.state(this.runId);
  }

  task(taskId: string): TaskView {
    const task = this.state.tasks[taskId];
    if (!task) throw new Error(`Run ${this.runId} has no task "${taskId}"`);
    return task;
  }

  emit(body: RunEventBody): RunEvent {
    const event = this.store.append(this.runId, body);
    for (const listener of this.listeners) listener(event, this.state);
    return event;
  }

  transition(taskId: string, event: TaskEvent, reason: string): void {
    const from = this.task(taskId).state;
    const to = TaskStateMachine.next(from, event, taskId);
    this.emit({ type: 'task_transition', taskId, event, from, to, reason });
  }

  /** Applies `event` when the table allows it from the task's current state; says whether it did. */
  transitionIfLegal(taskId: string, event: TaskEvent, reason: string): boolean {
    if (!TaskStateMachine.canApply(this.task(taskId).state, event)) return false;
    this.transition(taskId, event, reason);
    return true;
  }

  onEvent(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
