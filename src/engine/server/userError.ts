import { ErrorCodes, LSPErrorCodes, ResponseError } from 'vscode-languageserver/node';
import type { UserFacingErrorData } from '../../protocol/engineProtocol';

/** Bad input from the editor or the user (unknown run, wrong state): answered, not logged as a bug. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * Errors the engine raises for input the user can fix, by name (the classes live all over the
 * engine, and a name survives bundling): each carries a message, and some a `hint`.
 */
const USER_FACING = new Set([
  'UserError',
  'SettingsError',
  'LockHeldError',
  'RunNotFoundError',
  'PlanValidationError',
  'PlanFileError',
  'PlanningError',
  'WorkspaceError',
  'UnsupportedEventError',
  'ForgeError',
  'ScenarioError',
  'CorruptLogError',
  'HumanDecisionError',
]);

/**
 * The answer to a request that failed: a user-facing error with its hint (the extension shows
 * both), or an internal one, which is logged with its stack since it is a bug.
 */
export function toResponseError(error: unknown, method: string, log: (message: string) => void): ResponseError<UserFacingErrorData> {
  if (error instanceof ResponseError) return error as ResponseError<UserFacingErrorData>;
  const err = error instanceof Error ? error : new Error(String(error));
  if (err.name === 'UnknownRunError') {
    const { hint, whatWouldRun } = err as Error & { hint?: string; whatWouldRun?: string[] };
    return new ResponseError(LSPErrorCodes.RequestFailed, err.message, {
      kind: 'user',
      ...(hint ? { hint } : {}),
      unknownRun: { whatWouldRun: Array.isArray(whatWouldRun) ? whatWouldRun : [] },
    });
  }
  if (err.name === 'UnpublishedWorkError') {
    const { hint, taskIds } = err as Error & { hint?: string; taskIds?: string[] };
    return new ResponseError(LSPErrorCodes.RequestFailed, err.message, { kind: 'user', ...(hint ? { hint } : {}), unpublishedWork: taskIds ?? [] });
  }
  if (err.name === 'ForgeError' && (err as Error & { failure?: string }).failure === 'credentials') {
    const { hint } = err as Error & { hint?: string };
    return new ResponseError(LSPErrorCodes.RequestFailed, err.message, { kind: 'user', ...(hint ? { hint } : {}), forgeCredentials: true });
  }
  if (USER_FACING.has(err.name)) {
    const hint = (err as { hint?: unknown }).hint;
    return new ResponseError(LSPErrorCodes.RequestFailed, err.message, { kind: 'user', ...(typeof hint === 'string' && hint ? { hint } : {}) });
  }
  log(`${method} failed: ${err.stack ?? err.message}`);
  return new ResponseError(ErrorCodes.InternalError, `Taskloom engine error in ${method}: ${err.message}`);
}
