import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageserver-protocol';
import type { Confirm } from '../confirm';
import { log, logFile } from '../logger';
import { errorNotice, userData, type NoticeAction } from './errorNotice';
import { runCommand } from '../runCommand';

export { userData } from './errorNotice';

/** Cancelled by the user (a progress notification's Cancel): not an error to report. */
export const isCancellation = (error: unknown): boolean =>
  error instanceof vscode.CancellationError || (error instanceof ResponseError && error.code === -32800);

/**
 * Shows an error the way its kind asks (see errorNotice) and logs it. Resolves once the user
 * chose one of its actions (and it was carried out) or dismissed it; a command need not wait.
 */
export async function showError(action: string, error: unknown): Promise<void> {
  if (isCancellation(error)) return;
  const notice = errorNotice(action, error, logFile());
  log[notice.log.level](notice.log.line);
  const show = notice.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
  const chosen = await show<NoticeAction>(notice.text, ...notice.actions);
  if (chosen) await carryOut(chosen);
}

async function carryOut(action: NoticeAction): Promise<void> {
  if ('run' in action) {
    await vscode.commands.executeCommand(action.run.command, ...action.run.args);
    return;
  }
  switch (action.title) {
    case 'Show Output':
      log.show(true);
      return;
    case 'Open Settings':
      await vscode.commands.executeCommand('workbench.action.openSettings', action.setting);
      return;
    case 'View Read-Only':
      // Listing the runs has the engine follow the other process's run, live, into the Runs view.
      await runCommand('taskloom.refreshRuns');
      await vscode.commands.executeCommand('taskloom.runs.focus');
      return;
  }
}

/** Runs a command body, reporting its failure instead of letting VS Code show a bare stack. */
export function reporting<A extends unknown[]>(action: string, body: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await body(...args);
    } catch (error) {
      void showError(action, error);
    }
  };
}

/**
 * For an engine refusal to drive a run not started on this machine: asks, in a modal listing what
 * would run, whether to go on anyway. Undefined when the error is something else.
 */
export async function confirmUnknownRun(confirm: Confirm, error: unknown): Promise<boolean | undefined> {
  const unknownRun = userData(error)?.unknownRun;
  if (!unknownRun) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return confirm(
    `Taskloom: ${message}.`,
    `Resuming it would run:\n${unknownRun.whatWouldRun.join('\n')}\n\nOnly resume it if you trust this repository.`,
    'Resume Anyway',
  );
}
