import * as vscode from 'vscode';
import type { RunState } from '../engine/domain/runState';
import { allowedHumanActions } from '../engine/domain/humanActions';
import { TASK_STATE_WORDS } from '../engine/domain/stateWords';
import { runRefusalWords } from '../engine/text/actionWords';
import { counted } from '../engine/text/counted';
import type { CommandId } from './commandIds';
import { Disposable, toDisposable } from './disposable';
import type { RunsController } from './runsController';
import type { ModelChange } from './state/runsModel';
import { runName } from './targets/applicability';
import type { RunRef } from './targets/runRef';
import { plainText } from './tree/presentation';
import { runCommand } from './runCommand';

/** Tasks that come to need you within this of each other are told in one notification. */
export const GROUP_MS = 1_500;

/** Tasks that wait for a person's decision; one a person is resolving by hand is theirs already, not news. */
const needingDecision = (state: RunState): string[] => state.taskOrder.filter((id) => state.tasks[id]?.state === 'NEEDS_HUMAN');

const TASK_BUTTONS = { Retry: { action: 'retry', command: 'taskloom.retryTask' }, Skip: { action: 'skip', command: 'taskloom.skipTask' } } as const satisfies Record<string, { action: string; command: CommandId }>;

/**
 * A notification for each task that comes to need you while this window follows its run — "word-count
 * needs you: gate failed … — Open / Retry / Skip" — wherever the user is looking; tasks that come
 * together are told in one notification with their true count. Tasks already waiting when a run is
 * first seen here (a window opening on it) are the resume prompt's and Needs You's, not news. A
 * notification cannot be closed once shown, so each button checks, when pressed, that the task
 * still needs you, and says what happened instead when it does not.
 */
export class NeedsYouNotices extends Disposable {
  /** Per run: the tasks needing a decision when it was last seen. */
  private readonly seen = new Map<string, Set<string>>();
  /** Per run: tasks that came to need you and are not told yet. */
  private readonly arrived = new Map<string, { ref: RunRef; taskIds: string[] }>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly controller: Pick<RunsController, 'model' | 'state'>) {
    super();
    this._register(toDisposable(controller.model.onDidChange((change) => this.note(change))));
    this._register(toDisposable(() => clearTimeout(this.timer)));
  }

  private note(change: ModelChange): void {
    for (const { folder, runId } of change.runs) {
      const state = this.controller.model.run(folder, runId)?.state;
      if (!state) continue;
      const key = `${folder}\u0000${runId}`;
      const now = new Set(needingDecision(state));
      const before = this.seen.get(key);
      this.seen.set(key, now);
      const fresh = before ? [...now].filter((id) => !before.has(id)) : [];
      if (fresh.length === 0) continue;
      const pending = this.arrived.get(key) ?? { ref: { folder, runId }, taskIds: [] };
      pending.taskIds.push(...fresh.filter((id) => !pending.taskIds.includes(id)));
      this.arrived.set(key, pending);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.tell(), GROUP_MS);
    }
  }

  private tell(): void {
    const runs = [...this.arrived.values()];
    this.arrived.clear();
    for (const { ref, taskIds } of runs) {
      const state = this.controller.model.run(ref.folder, ref.runId)?.state;
      // Told only what still needs you (a task decided within the grouping time is not news any more), in the plan's order.
      const waiting = state ? needingDecision(state).filter((id) => taskIds.includes(id)) : [];
      if (!state || waiting.length === 0) continue;
      if (waiting.length === 1) void this.tellOne(ref, state, waiting[0]!);
      else void this.tellMany(ref, state, waiting);
    }
  }

  private async tellOne(ref: RunRef, state: RunState, taskId: string): Promise<void> {
    const task = state.tasks[taskId]!;
    const allowed = allowedHumanActions(task);
    const buttons = (Object.keys(TASK_BUTTONS) as Array<keyof typeof TASK_BUTTONS>).filter((label) => allowed.includes(TASK_BUTTONS[label].action));
    const choice = await vscode.window.showWarningMessage(`Taskloom: "${taskId}" needs you: ${plainText(task.lastReason || 'it stopped', 200)}`, 'Open', ...buttons);
    const taskRef = { ...ref, taskId };
    if (choice === 'Open') await runCommand('taskloom.showRun', taskRef);
    else if (choice && (await this.stillNeedsYou(ref, taskId))) await runCommand(TASK_BUTTONS[choice].command, taskRef);
  }

  private async tellMany(ref: RunRef, state: RunState, taskIds: string[]): Promise<void> {
    const all = needingDecision(state).length;
    const named = taskIds.slice(0, 3).join(', ') + (taskIds.length > 3 ? ` and ${taskIds.length - 3} more` : '');
    const inAll = all > taskIds.length ? ` (${all} in all)` : '';
    const choice = await vscode.window.showWarningMessage(
      `Taskloom: ${counted(taskIds.length, 'task')} of ${runName(this.controller.model.run(ref.folder, ref.runId), ref.runId)} need you${inAll}: ${named}.`,
      'Show Needs You',
      'Show Run',
    );
    if (choice === 'Show Needs You') await vscode.commands.executeCommand('taskloom.needsYou.focus');
    if (choice === 'Show Run') await runCommand('taskloom.showRun', ref);
  }

  /** The notification's premise, checked when a button is pressed: else it says what happened since. */
  private async stillNeedsYou(ref: RunRef, taskId: string): Promise<boolean> {
    const state = await this.controller.state(ref.folder, ref.runId);
    const task = state?.tasks[taskId];
    if (state && task?.state === 'NEEDS_HUMAN') return true;
    const entry = this.controller.model.run(ref.folder, ref.runId);
    const what = !state || !task
      ? `run ${ref.runId} is no longer in ${ref.folder}`
      : state.status === 'cancelled' && task.state !== 'MERGED'
        ? runRefusalWords({ kind: 'cancelled' }, runName(entry, ref.runId))
        : `"${taskId}" no longer needs you: it is ${TASK_STATE_WORDS[task.state]} now`;
    void vscode.window.showInformationMessage(`Taskloom: ${what}.`);
    return false;
  }
}
