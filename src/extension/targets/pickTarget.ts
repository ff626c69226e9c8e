import * as vscode from 'vscode';
import type { RunsController } from '../runsController';
import type { TaskView } from '../../engine/domain/runState';
import { TASK_STATE_WORDS } from '../../engine/domain/stateWords';
import type { RunEntry } from '../state/runsModel';
import { phaseWords, plainText, runPhase } from '../tree/presentation';
import { countWords } from '../../engine/domain/taskCounts';
import { runActionRefusal, taskActionRefusal, type RunAction, type TaskAction } from '../../engine/domain/runActions';
import { runActionApplies, taskActionApplies } from './applicability';
import { isRunRef, isTaskRef, type RunRef, type TaskRef } from './runRef';

const namedRun = (value: unknown): boolean => typeof value === 'object' && value !== null && typeof (value as { runId?: unknown }).runId === 'string';

/** The folder to act on: the only one, or the user's pick in a multi-root workspace. */
export async function pickFolder(controller: RunsController, given?: string): Promise<string | undefined> {
  if (given) return given;
  const folders = controller.folders();
  if (folders.length === 0) {
    void vscode.window.showErrorMessage('Taskloom needs a folder: open a git repository first (File › Open Folder).');
    return undefined;
  }
  if (folders.length === 1) return folders[0];
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which folder (git repository) should Taskloom work in?' });
  return picked?.uri.fsPath;
}

/** The run a command names, or the user's pick among the runs that `accept` allows. */
export async function pickRun(
  controller: RunsController,
  arg: unknown,
  accept: (entry: RunEntry) => boolean,
  nothing: string,
): Promise<RunRef | undefined> {
  if (isRunRef(arg)) return { folder: arg.folder, runId: arg.runId };
  await controller.refreshAll();
  // A run named by its id alone (a notification's next step): the folder is the one that has it.
  const named = namedRun(arg) && controller.model.allRuns().find((entry) => entry.summary.runId === (arg as { runId: string }).runId);
  if (named) return { folder: named.folder, runId: named.summary.runId };
  const candidates = controller.model.allRuns().filter(accept);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(nothing);
    return undefined;
  }
  if (candidates.length === 1) return { folder: candidates[0]!.folder, runId: candidates[0]!.summary.runId };
  const picked = await vscode.window.showQuickPick(
    candidates.map((entry) => ({
      label: plainText(entry.summary.goal || entry.summary.runId, 100),
      description: `${countWords(entry.summary)} · ${phaseWords(runPhase(entry.summary, entry.state))}`,
      detail: `${entry.summary.runId} · ${vscode.workspace.asRelativePath(entry.folder)}`,
      ref: { folder: entry.folder, runId: entry.summary.runId },
    })),
    { placeHolder: 'Which run?' },
  );
  return picked?.ref;
}

/**
 * The run a command acts on with `action`: the one it names, or the user's pick among the runs the
 * action applies to; either way checked against the run as it stands now, and refused in words
 * when the action does not apply (a stale button, a row redrawn since).
 */
export async function pickRunFor(controller: RunsController, arg: unknown, action: RunAction, nothing: string): Promise<RunRef | undefined> {
  const ref = await pickRun(controller, arg, (entry) => runActionRefusal(action, controller.facts(entry)) === undefined, nothing);
  return ref && (await runActionApplies(controller, ref, action)) ? ref : undefined;
}

/** The same for a task: the one named, or the user's pick among the tasks `action` applies to, checked now. */
export async function pickTaskFor(
  controller: RunsController,
  arg: unknown,
  action: TaskAction,
  nothing: string,
  options: { completedRuns?: boolean } = {},
): Promise<TaskRef | undefined> {
  const ref = await pickTask(controller, arg, (task) => taskActionRefusal(action, task) === undefined, nothing, options);
  return ref && (await taskActionApplies(controller, ref, action)) ? ref : undefined;
}

/**
 * The task a command names, or the user's pick among the tasks that `accept` allows: of the runs
 * not completed, and of completed ones too with `completedRuns` (their states are loaded for it).
 */
export async function pickTask(
  controller: RunsController,
  arg: unknown,
  accept: (task: TaskView) => boolean,
  nothing: string,
  options: { completedRuns?: boolean } = {},
): Promise<TaskRef | undefined> {
  if (isTaskRef(arg)) return { folder: arg.folder, runId: arg.runId, taskId: arg.taskId };
  await controller.refreshAll();
  const items: Array<vscode.QuickPickItem & { ref: TaskRef }> = [];
  for (const entry of controller.model.allRuns()) {
    const load = options.completedRuns || entry.summary.status !== 'completed';
    const state = entry.state ?? (load ? await controller.state(entry.folder, entry.summary.runId) : undefined);
    for (const taskId of state?.taskOrder ?? []) {
      const task = state!.tasks[taskId]!;
      if (!accept(task)) continue;
      items.push({
        label: `${taskId}: ${plainText(task.title, 80)}`,
        description: TASK_STATE_WORDS[task.state],
        detail: plainText(task.lastReason, 200),
        ref: { folder: entry.folder, runId: entry.summary.runId, taskId },
      });
    }
  }
  if (items.length === 0) {
    void vscode.window.showInformationMessage(nothing);
    return undefined;
  }
  if (items.length === 1) return items[0]!.ref;
  return (await vscode.window.showQuickPick(items, { placeHolder: 'Which task?' }))?.ref;
}
