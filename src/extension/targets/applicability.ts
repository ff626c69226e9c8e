import * as vscode from 'vscode';
import { runActionRefusal, taskActionRefusal, type RunAction, type TaskAction } from '../../engine/domain/runActions';
import { runRefusalWords, taskRefusalWords } from '../../engine/text/actionWords';
import type { RunsController } from '../runsController';
import type { RunEntry } from '../state/runsModel';
import { plainText } from '../tree/presentation';
import type { RunRef, TaskRef } from './runRef';

/** "run "add rate limiting"": how a refusal names the run the user acted on. */
export const runName = (entry: Pick<RunEntry, 'summary'> | undefined, runId: string): string => `run "${plainText(entry?.summary.goal || runId, 60)}"`;

/** Says why an action did not run, plainly: an information, not an error (nothing failed). */
const tell = (words: string): void => void vscode.window.showInformationMessage(`Taskloom: ${words}.`);

/**
 * Whether `action` applies to the run now, by the same rules the menus and the run view use
 * (domain/runActions.ts) over the run as it stands (its state fetched when the window has none or
 * an outdated one). When it does not — a button pressed after the run moved on, a command from the
 * palette — it says what happened instead and answers false.
 */
export async function runActionApplies(controller: RunsController, ref: RunRef, action: RunAction): Promise<boolean> {
  await controller.state(ref.folder, ref.runId);
  const entry = controller.model.run(ref.folder, ref.runId);
  if (!entry) {
    tell(`run ${ref.runId} is no longer in ${ref.folder} (it was discarded)`);
    return false;
  }
  const refusal = runActionRefusal(action, controller.facts(entry));
  if (refusal) tell(runRefusalWords(refusal, runName(entry, ref.runId)));
  return refusal === undefined;
}

/** The same for an action on a task: a decision, its diff or its worktree. */
export async function taskActionApplies(controller: RunsController, ref: TaskRef, action: TaskAction): Promise<boolean> {
  const state = await controller.state(ref.folder, ref.runId);
  const entry = controller.model.run(ref.folder, ref.runId);
  const task = state?.tasks[ref.taskId];
  if (!entry || !task) {
    tell(entry ? `${runName(entry, ref.runId)} has no task "${ref.taskId}"` : `run ${ref.runId} is no longer in ${ref.folder} (it was discarded)`);
    return false;
  }
  const refusal = taskActionRefusal(action, task);
  if (refusal) tell(taskRefusalWords(task, action, refusal));
  return refusal === undefined;
}
