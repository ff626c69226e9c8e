/** A workspace problem the user can fix; `hint` says how, in words fit for a notification. */
export class WorkspaceError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WorkspaceError';
  }
}
