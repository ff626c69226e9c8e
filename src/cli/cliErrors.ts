/** Bad usage or bad input: exit code 2 with the message (and a hint) on stderr. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT = { ok: 0, needsHuman: 1, badInput: 2 } as const;
