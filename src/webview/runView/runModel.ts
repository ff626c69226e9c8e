// The webview's copy of the run: the last `state` message with later `events` folded onto it by
// the engine's own projection. Pure (no DOM), so it is tested in Node.
import type { RunEvent } from '../../engine/domain/events';
import { applyEvent } from '../../engine/domain/projection';
import type { Decision, RunState } from '../../engine/domain/runState';
import { addHistories, type PagedOut, type RunHistories } from '../../protocol/runViewPages';
import { countTasks, type TaskCounts } from '../../engine/domain/taskCounts';
import { TASK_STATES, type TaskState } from '../../engine/domain/taskStates';

export interface FoldOutcome {
  /** At least one event changed the state. */
  changed: boolean;
  /** Events are missing or did not fold: ask the extension for the whole state again. */
  resync: boolean;
}

export class RunModel {
  private current: RunState | undefined;
  /** Set when an event failed to fold: the state may be half-updated, so nothing more is applied to it. */
  private broken = false;
  /** What the state was sent without (a first page) and has not been given since. */
  private omitted: PagedOut = { decisions: 0, histories: false };
  /** Counts every change, so a view can tell whether it is up to date. */
  version = 0;

  get state(): RunState | undefined {
    return this.current;
  }

  /** Older decisions the state does not hold (a first page's); the ledger asks for them to search. */
  get decisionsOmitted(): number {
    return this.omitted.decisions;
  }

  /** The tasks' histories (transitions, attempts, calls, transcripts) are not here yet. */
  get historiesMissing(): boolean {
    return this.omitted.histories;
  }

  /** Takes ownership of `state` (a structured clone from postMessage); events are folded into it in place. */
  setState(state: RunState, omitted?: PagedOut): void {
    this.current = state;
    this.broken = false;
    this.omitted = { decisions: omitted?.decisions ?? 0, histories: omitted?.histories ?? false };
    this.version++;
  }

  /**
   * Every decision as of event `seq`, for a first page. False when the state is not at `seq`
   * (it cannot be merged: ask for the whole state again).
   */
  setDecisions(seq: number, decisions: Decision[]): boolean {
    if (!this.current || this.broken || this.current.lastSeq !== seq) return false;
    this.current.decisions = decisions;
    this.omitted.decisions = 0;
    this.version++;
    return true;
  }

  /** The histories as of event `seq`, for a first page; false as for setDecisions. */
  setHistories(seq: number, histories: RunHistories): boolean {
    if (!this.current || this.broken || this.current.lastSeq !== seq) return false;
    addHistories(this.current, histories);
    this.omitted.histories = false;
    this.version++;
    return true;
  }

  applyEvents(events: readonly RunEvent[]): FoldOutcome {
    const outcome: FoldOutcome = { changed: false, resync: false };
    // Before the first state, or after a failed fold, the next state message brings everything.
    if (!this.current || this.broken) return outcome;
    for (const event of events) {
      if (event.runId !== this.current.runId || event.seq <= this.current.lastSeq) continue;
      if (event.seq !== this.current.lastSeq + 1) outcome.resync = true;
      try {
        applyEvent(this.current, event);
        outcome.changed = true;
      } catch {
        this.broken = true;
        outcome.resync = true;
        outcome.changed = true;
        break;
      }
    }
    if (outcome.changed) this.version++;
    return outcome;
  }
}

export interface RunProgress extends TaskCounts {
  byState: Record<TaskState, number>;
}

export function runProgress(state: Pick<RunState, 'taskOrder' | 'tasks'>): RunProgress {
  const byState = Object.fromEntries(TASK_STATES.map((s) => [s, 0])) as Record<TaskState, number>;
  for (const id of state.taskOrder) {
    const task = state.tasks[id];
    if (task) byState[task.state]++;
  }
  return { ...countTasks(state), byState };
}
