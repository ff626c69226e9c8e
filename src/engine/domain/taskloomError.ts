import type { NextStep } from './nextStep';

/**
 * How the CLI ends. 0 and 1 are the run's own outcome; the others say why a command could not
 * do what was asked, so a script can tell "fix your input" from "wait" from "free the disk" from a bug.
 */
export const EXIT = {
  ok: 0,
  /** A task needs a human, or the run was paused or cancelled. */
  needsHuman: 1,
  /** Bad usage or input, or the setup a command needs is missing: fix it and run again. */
  badInput: 2,
  /** A bug in Taskloom (EX_SOFTWARE). */
  internal: 70,
  /** The run's record could not be written or read (EX_IOERR): free space or repair it, then go on. */
  storage: 74,
  /** Another Taskloom process is driving the workspace (EX_TEMPFAIL): try again once it is done. */
  busy: 75,
} as const;

/** What a user-facing failure is about; it decides the exit code, and the editor is told it. */
export type ErrorKind = 'bad_input' | 'needs_environment' | 'agent_failed' | 'busy' | 'storage';

const EXIT_BY_KIND: Record<ErrorKind, number> = {
  bad_input: EXIT.badInput,
  needs_environment: EXIT.badInput,
  agent_failed: EXIT.needsHuman,
  busy: EXIT.busy,
  storage: EXIT.storage,
};

/**
 * Exactly what a use case (src/engine/usecases) refused, for a caller that acts on it rather than
 * show it: a front door that asks and tries again (`unknown_run`), a client of the MCP server, a test.
 */
export type ErrorCode =
  | 'no_run'
  | 'run_not_found'
  | 'unknown_task'
  | 'unknown_run'
  | 'run_busy'
  | 'run_completed'
  | 'start_again'
  | 'not_cancellable'
  | 'no_plan_waiting'
  | 'planning_cancelled'
  | 'decision_refused'
  | 'task_taken_up'
  | 'nothing_to_stop'
  | 'nothing_to_take_over'
  | 'no_pull_request'
  | 'pull_request_not_watchable'
  | 'baseline_choice_needed'
  | 'no_baseline_choice'
  | 'config_not_allowed'
  | 'no_config_file'
  | 'task_takes_no_messages'
  | 'untrusted_issue'
  | 'candidate_refused';

/**
 * A failure the user can act on: what happened (the message), what to do next (the hint, in words
 * that name no command, and the steps it points to as data), and its kind. Every error the engine,
 * the server or the CLI raises for the user extends this one; anything else that escapes is a bug,
 * and is reported as an internal error.
 */
export class TaskloomError extends Error {
  readonly hint: string | undefined;
  /** The steps the hint speaks of: the CLI prints each as a command line, the editor offers each as a button. */
  readonly next: readonly NextStep[];
  /** What exactly was refused, where a caller may act on it; undefined for a failure it only shows. */
  readonly code: ErrorCode | undefined;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    hint?: string,
    options?: { cause?: unknown; next?: readonly NextStep[]; code?: ErrorCode },
  ) {
    super(message, options);
    this.name = 'TaskloomError';
    this.hint = hint || undefined;
    this.next = options?.next ?? [];
    this.code = options?.code;
  }

  get exitCode(): number {
    return EXIT_BY_KIND[this.kind];
  }
}

/**
 * What happened and what to do next, in one line: how every view (the CLI, a notification, a
 * recorded reason, the log) words a user-facing error, so no view shows the message without its hint.
 * Messages are written without a closing full stop; one is put between them when missing.
 */
export function errorText(error: { message: string; hint?: string | undefined }): string {
  if (!error.hint) return error.message;
  return `${error.message}${/[.!?]$/.test(error.message) ? '' : '.'} ${error.hint}`;
}
