import { TaskloomError } from '../engine/domain/taskloomError';

export { EXIT } from '../engine/domain/taskloomError';

/** Bad usage or bad input: exit code 2 with the message (and a hint) on stderr. */
export class UsageError extends TaskloomError {
  constructor(message: string, hint?: string) {
    super('bad_input', message, hint);
    this.name = 'UsageError';
  }
}
