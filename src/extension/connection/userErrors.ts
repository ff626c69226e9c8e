import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import type { UserFacingErrorData } from '../../protocol/engineProtocol';
import type { Confirm } from '../confirm';
import { log } from '../logger';

/** Cancelled by the user (a progress notification's Cancel): not an error to report. */
export const isCancellation = (error: unknown): boolean =>
  error instanceof vscode.CancellationError || (error instanceof ResponseError && error.code === -32800);

/** The engine's account of a user-facing error; undefined for anything else (a bug, a lost connection). */
export function userData(error: unknown): UserFacingErrorData | undefined {
  if (!(error instanceof ResponseError)) return undefined;
  const data = error.data as Partial<UserFacingErrorData> | undefined;
  return typeof data?.kind === 'string' ? (data as UserFacingErrorData) : undefined;
}

/**
 * Shows an error the way a user can act on it: a user-facing engine error as its message and
 * hint; anything else as "unexpected" with a way to the log.
 */
export function showError(action: string, error: unknown): void {
  if (isCancellation(error)) return;
  const message = error instanceof Error ? error.message : String(error);
  const user = userData(error);
  if (user) {
    log.warn(`${action}: ${message}${user.hint ? ` (${user.hint})` : ''}`);
    // Not awaited: a command must not hang until the notification is dismissed.
    void vscode.window.showErrorMessage(`Taskloom: ${message}${user.hint ? ` ${user.hint}` : ''}`);
    return;
  }
  log.error(`${action} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
  void vscode.window.showErrorMessage(`Taskloom could not ${action}: ${message}`, 'Show Output').then((choice) => {
    if (choice === 'Show Output') log.show(true);
  });
}

/** Runs a command body, reporting its failure instead of letting VS Code show a bare stack. */
export function reporting<A extends unknown[]>(action: string, body: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await body(...args);
    } catch (error) {
      showError(action, error);
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
