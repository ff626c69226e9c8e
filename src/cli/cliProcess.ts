import { errorText, TaskloomError } from '../engine/domain/taskloomError';
import { EXIT } from './cliErrors';
import { red } from './format';
import { nextStepLines } from './nextStepCommands';

/**
 * The CLI process's way out: runs the command and ends with its exit code, or with the code of
 * what it threw (see reportError). `taskloom trace | head` is no failure: once the reader has
 * what it wanted, the CLI stops quietly instead of crashing on EPIPE.
 */
export function exitWith(command: () => Promise<number>): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    throw error;
  });
  command().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportError(error);
    },
  );
}

/** A failure the user can act on, on stderr: what happened and what to do next, with the commands that do it. */
export function printUserError(error: TaskloomError): void {
  process.stderr.write(`${red('taskloom:')} ${errorText(error)}\n${nextStepLines(error.next)}`);
}

/**
 * A TaskloomError is the user's to act on: its words, and its kind's exit code. Anything else is
 * a bug in Taskloom, and says so rather than blame the input, without a stack unless asked for.
 */
function reportError(error: unknown): number {
  if (error instanceof TaskloomError) {
    printUserError(error);
    return error.exitCode;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const where = process.env.TASKLOOM_DEBUG
    ? (err.stack ?? err.message)
    : 'Taskloom did not expect this: it is a bug, not your input. Run the command again with TASKLOOM_DEBUG=1 for the stack trace, and report it with that.';
  process.stderr.write(`${red('taskloom: internal error:')} ${err.message}\n${where}\n`);
  return EXIT.internal;
}
