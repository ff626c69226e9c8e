import type { NextStep } from '../domain/nextStep';
import { TaskloomError, type ErrorKind } from '../domain/taskloomError';

/** A workspace problem the user can fix; `hint` says how, in words fit for a notification. */
export class WorkspaceError extends TaskloomError {
  declare readonly hint: string;

  constructor(message: string, hint: string, options?: { cause?: unknown; kind?: ErrorKind; next?: readonly NextStep[] }) {
    super(options?.kind ?? 'needs_environment', message, hint, options);
    this.name = 'WorkspaceError';
  }
}
