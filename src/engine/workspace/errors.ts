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

/**
 * A task cannot start because its dependencies' branches do not merge cleanly. The merge was
 * aborted, so the task worktree holds only what merged before `dependency`.
 */
export class DependencyMergeError extends WorkspaceError {
  constructor(
    readonly taskId: string,
    /** The dependency branch whose merge conflicted. */
    readonly dependency: string,
    /** Dependency branches merged (cleanly) before it. */
    readonly mergedDependencies: string[],
    readonly files: string[],
  ) {
    super(
      `Task "${taskId}" cannot start: merging ${dependency} onto ${
        mergedDependencies.length ? mergedDependencies.join(', ') : 'the run base'
      } conflicts in ${files.length ? files.join(', ') : 'unknown files'}`,
      'The tasks it depends on changed the same lines. Resolve them together (or make one depend on the other) and retry the task.',
    );
    this.name = 'DependencyMergeError';
  }
}
