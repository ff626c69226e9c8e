import { EVENT_SCHEMA_VERSION, type RunEvent, type RunEventBody } from '../../src/engine/domain/events';
import type { Plan } from '../../src/engine/domain/plan';
import { DEFAULT_RUN_CONFIG } from '../../src/engine/domain/runConfig';
import { TaskStateMachine } from '../../src/engine/domain/taskStateMachine';
import type { RunCreatedBody } from '../../src/engine/store/runStore';
import type { TaskEvent, TaskState } from '../../src/engine/domain/taskStates';

export const TWO_TASK_PLAN: Plan = {
  goal: 'two tasks',
  rationale: 'b builds on a',
  tasks: [
    { id: 'a', title: 'Task A', description: 'first', acceptance: ['works'], dependsOn: [] },
    { id: 'b', title: 'Task B', description: 'second', acceptance: [], dependsOn: ['a'] },
  ],
};

/** A run_created body for `plan`, as a scripted run in /repo records it; `over` changes fields (a fresh object each call: tests edit it). */
export function runCreatedBody(plan: Plan, over: Partial<RunCreatedBody> = {}): RunCreatedBody {
  return {
    type: 'run_created',
    goal: plan.goal,
    plan,
    config: { ...DEFAULT_RUN_CONFIG, gateCommands: ['npm test'], agent: { kind: 'scripted', scriptPath: '/dev/null' } },
    repoRoot: '/repo',
    baseCommit: 'a'.repeat(40),
    baseRef: 'main',
    ignoredChanges: [],
    createdBy: { host: 'test', pid: 1 },
    ...over,
  };
}

/**
 * Builds a legal event stream for tests: tracks seq and each task's state like the engine does.
 * Events carry this release's format version; `version: 1` builds a stream as release 0.1 wrote it.
 */
export class EventBuilder {
  readonly events: RunEvent[] = [];
  private readonly states = new Map<string, TaskState>();
  /** Time passed on top of the one second each event takes. */
  private waitedMs = 0;

  constructor(
    readonly runId = 'run-1',
    plan: Plan = TWO_TASK_PLAN,
    private readonly version: number = EVENT_SCHEMA_VERSION,
  ) {
    for (const t of plan.tasks) this.states.set(t.id, 'PENDING');
    this.add(runCreatedBody(plan));
  }

  add(body: RunEventBody): RunEvent {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, this.events.length) + this.waitedMs).toISOString();
    const event = { ...body, seq: this.events.length + 1, runId: this.runId, at, ...(this.version > 1 ? { v: this.version } : {}) } as RunEvent;
    this.events.push(event);
    return event;
  }

  /** Lets `ms` pass before the next event (each event is one second after the one before it anyway). */
  wait(ms: number): this {
    this.waitedMs += ms;
    return this;
  }

  move(taskId: string, ...events: TaskEvent[]): this {
    for (const event of events) {
      const from = this.states.get(taskId)!;
      const to = TaskStateMachine.next(from, event, taskId);
      this.states.set(taskId, to);
      this.add({ type: 'task_transition', taskId, event, from, to, reason: `${event.toLowerCase()} for test` });
    }
    return this;
  }
}
