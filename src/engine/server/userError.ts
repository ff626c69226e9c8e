import { ErrorCodes, LSPErrorCodes, ResponseError } from 'vscode-languageserver/node';
import type { NextStep } from '../domain/nextStep';
import { TaskloomError } from '../domain/taskloomError';
import { UnpublishedWorkError } from '../deliver/discardRun';
import { ForgeError } from '../forge/forge';
import { UnknownRunError } from '../run/runProvenance';
import { SettingsError } from '../run/runConfigFromSettings';
import { PlanValidationError } from '../plan/parsePlan';
import type { PlanningError } from '../run/planner';
import { EDITOR_SETTING_KEYS } from '../../protocol/runSettings';
import type { UserFacingErrorData } from '../../protocol/engineProtocol';

/** Bad input from the editor or the user (unknown run, wrong state): answered, not logged as a bug. */
export class UserError extends TaskloomError {
  constructor(message: string, hint?: string, next: readonly NextStep[] = []) {
    super('bad_input', message, hint, { next });
    this.name = 'UserError';
  }
}

/** Planning a goal failed: the error the planner gave, with the run it ended, for the editor's next steps. */
export class PlanningFailedError extends TaskloomError {
  constructor(
    readonly runId: string,
    readonly planning: PlanningError,
  ) {
    super(planning.kind, planning.message, planning.hint, { cause: planning });
    this.name = 'PlanningFailedError';
  }
}

/** A plan file's problems sent with the error: enough to mark each where it is, however many there are. */
const SENT_PLAN_PROBLEMS = 500;

/**
 * The answer to a request that failed: a TaskloomError with its kind and hint (the extension
 * shows both), and what the editor can offer for it; anything else is a bug, logged here with
 * its stack and answered as an internal error (the extension says so, and where the log is).
 */
export function toResponseError(error: unknown, method: string, log: (message: string) => void): ResponseError<UserFacingErrorData> {
  if (error instanceof ResponseError) return error as ResponseError<UserFacingErrorData>;
  if (error instanceof TaskloomError) return new ResponseError(LSPErrorCodes.RequestFailed, error.message, userFacingData(error));
  const err = error instanceof Error ? error : new Error(String(error));
  log(`${method} failed (internal error): ${err.stack ?? err.message}`);
  return new ResponseError(ErrorCodes.InternalError, err.message);
}

function userFacingData(error: TaskloomError): UserFacingErrorData {
  const data: UserFacingErrorData = {
    kind: error.kind,
    ...(error.code ? { code: error.code } : {}),
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.next.length ? { next: [...error.next] } : {}),
  };
  if (error instanceof UnknownRunError) data.unknownRun = { whatWouldRun: error.whatWouldRun };
  if (error instanceof UnpublishedWorkError) data.unpublishedWork = error.taskIds;
  if (error instanceof ForgeError && error.failure === 'credentials') data.forgeCredentials = true;
  if (error instanceof SettingsError && error.setting) data.setting = EDITOR_SETTING_KEYS[error.setting];
  if (error instanceof PlanningFailedError) data.planningFailed = { runId: error.runId, rejectedPlan: error.planning.rejectedPlan !== undefined };
  if (error instanceof PlanValidationError && error.source) {
    const problems = error.problems.slice(0, SENT_PLAN_PROBLEMS);
    data.planProblems = { file: error.source, problems, spans: problems.map((_, i) => error.places[i]?.span ?? null) };
  }
  return data;
}
