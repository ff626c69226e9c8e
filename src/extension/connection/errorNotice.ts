import { ResponseError } from 'vscode-languageserver-protocol';
import { errorText, type ErrorKind } from '../../engine/domain/taskloomError';
import type { UserFacingErrorData } from '../../protocol/engineProtocol';
import { nextStepButton, type StepButton } from './nextStepButtons';

/**
 * What a notification offers for an error, as data (userErrors.ts carries it out). Each is a
 * message item VS Code hands back as it is when chosen.
 */
export type NoticeAction =
  /** The setting the error is about, in the Settings editor. */
  | { title: 'Open Settings'; setting: string }
  /** The runs another process drives, followed live in the Runs view while it holds the workspace. */
  | { title: 'View Read-Only' }
  /** The Taskloom output, where a bug's stack and the engine's log are. */
  | { title: 'Show Output' }
  /** A next step the error names, as the editor takes it (nextStepButtons.ts). */
  | { title: string; run: StepButton };

export interface ErrorNotice {
  severity: 'error' | 'warning';
  text: string;
  actions: NoticeAction[];
  /** The line for the Taskloom output: a user-facing error is a warning there, a bug an error with its stack. */
  log: { level: 'warn' | 'error'; line: string };
}

/** Bad input, a busy workspace, an agent that failed: nothing is broken, so a warning; missing setup and storage are errors. */
const SEVERITY: Record<ErrorKind, ErrorNotice['severity']> = {
  bad_input: 'warning',
  needs_environment: 'error',
  agent_failed: 'warning',
  busy: 'warning',
  storage: 'error',
};

/** The engine's account of a user-facing error; undefined for anything else (a bug, a lost connection). */
export function userData(error: unknown): UserFacingErrorData | undefined {
  if (!(error instanceof ResponseError)) return undefined;
  const data = error.data as Partial<UserFacingErrorData> | undefined;
  return typeof data?.kind === 'string' ? (data as UserFacingErrorData) : undefined;
}

/** An error as one line: a user-facing one with its hint (errorText, as every view words it), anything else by its message. */
export function errorWords(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return errorText({ message, hint: userData(error)?.hint });
}

/**
 * How the editor tells `error`, which stopped it from doing `action` ("apply the integration"),
 * by its kind: the message and its hint, with what helps for that kind (the setting it names, a
 * read-only view of a busy workspace). Anything that is not a user-facing error is a bug in
 * Taskloom, said as such, with the way to its details: the output, and the log file it is kept in.
 */
export function errorNotice(action: string, error: unknown, logFile: string | undefined): ErrorNotice {
  const user = userData(error);
  if (!user) {
    const message = error instanceof Error ? error.message : String(error);
    const where = `It is a bug in Taskloom, not something you did; its details are in the Taskloom output${logFile ? ` (${logFile})` : ''}.`;
    return {
      severity: 'error',
      text: `Taskloom hit an internal error trying to ${action}: ${errorText({ message, hint: where })}`,
      actions: [{ title: 'Show Output' }],
      log: { level: 'error', line: `${action} failed (internal error): ${error instanceof Error ? (error.stack ?? message) : message}` },
    };
  }
  const words = errorWords(error);
  const actions: NoticeAction[] = [];
  if (user.setting) actions.push({ title: 'Open Settings', setting: user.setting });
  if (user.kind === 'busy') actions.push({ title: 'View Read-Only' });
  for (const step of user.next ?? []) {
    const run = nextStepButton(step);
    if (run && !actions.some((a) => a.title === run.title)) actions.push({ title: run.title, run });
  }
  return { severity: SEVERITY[user.kind], text: `Taskloom: ${words}`, actions, log: { level: 'warn', line: `${action}: ${words}` } };
}
