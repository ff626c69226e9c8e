import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TaskloomTestApi } from '../../../src/extension/testApi';
import type { RunEntry } from '../../../src/extension/state/runsModel';

export const EXTENSION_ID = 'taskloom.taskloom';

export async function taskloom(): Promise<TaskloomTestApi> {
  const extension = vscode.extensions.getExtension<TaskloomTestApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  const api = extension.isActive ? extension.exports : await extension.activate();
  assert.ok(api, 'the extension runs under test (ExtensionMode.Test), so it hands out its test API');
  return api;
}

/**
 * Answers the extension's modal confirmations in the user's place while `body` runs: agrees to
 * `agreeTo` only (nothing, when undefined), and returns what it was asked, each as the question
 * and its detail on the lines after it (a test asserts the question was put).
 */
export async function answeringConfirmations(api: TaskloomTestApi, agreeTo: string | undefined, body: (asked: readonly string[]) => PromiseLike<unknown>): Promise<string[]> {
  const asked: string[] = [];
  const answering = api.answerConfirmations(async (message, detail, action) => {
    asked.push(`${message}\n${detail}`);
    return action === agreeTo;
  });
  try {
    await body(asked);
  } finally {
    answering.dispose();
  }
  return asked;
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'a workspace folder is open');
  return folder;
}

/** Polls until `check` returns a value (not undefined/false), or fails saying what it waited for. */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

/** The newest run of the folder, as the extension's model holds it. */
export function newestRun(api: TaskloomTestApi, folder: string): RunEntry | undefined {
  return api.services.controller.model.runs(folder)[0];
}

/**
 * Starts `goal` as the palette's Start Goal does (not awaited: the command waits for the approval)
 * and answers the new run once its plan of `tasks` tasks waits for approval, the planner done.
 */
export async function startGoalAwaitingApproval(api: TaskloomTestApi, folder: string, goal: string, tasks = 5): Promise<RunEntry> {
  const before = new Set(api.services.controller.model.runs(folder).map((entry) => entry.summary.runId));
  void vscode.commands.executeCommand('taskloom.startGoal', { folder, goal });
  return waitFor(`the plan of "${goal}" to wait for approval`, () => {
    const entry = newestRun(api, folder);
    const waiting = entry?.state && !before.has(entry.summary.runId) && entry.summary.status === 'planning' && !entry.summary.active;
    return waiting && entry.state!.plan.tasks.length === tasks ? entry : undefined;
  });
}

/** The last event of the run the window has seen: what a later `settled` must see the run end after. */
export function lastSeqOf(api: TaskloomTestApi, folder: string, runId: string): number {
  return api.services.controller.model.run(folder, runId)?.state?.lastSeq ?? 0;
}

/**
 * Waits until the engine stops working on the run, and returns it with its state loaded. With
 * `endedAfter` (from lastSeqOf, taken before acting on the run), only a run_finished after that seq
 * counts: right after a decision the window may still show the stop that came before it.
 */
export async function settled(api: TaskloomTestApi, folder: string, runId: string, endedAfter?: number): Promise<RunEntry> {
  return waitFor(`run ${runId} to stop`, () => {
    const entry = api.services.controller.model.run(folder, runId);
    if (endedAfter !== undefined && (entry?.finishedSeq ?? -1) <= endedAfter) return undefined;
    return entry?.state && !entry.summary.active && entry.summary.status !== 'running' && entry.summary.status !== 'integrating' ? entry : undefined;
  }, 180_000);
}

export function taskStates(entry: RunEntry): Record<string, string> {
  const state = entry.state!;
  return Object.fromEntries(state.taskOrder.map((id) => [id, state.tasks[id]!.state]));
}
