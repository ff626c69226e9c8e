import type { GitObserver } from '../../src/engine/workspace/git';

/**
 * Times the git processes of what it is handed to (EngineOptions.gitObserver, RepoLocation.gitObserver,
 * GitOptions.observer). `totalMs` sums every command (overlapping ones count twice); `busyMs` is the
 * wall time during which at least one was running, which is what to subtract from a wall clock when
 * tasks run in parallel.
 */
export class GitTimer implements GitObserver {
  commands = 0;
  totalMs = 0;
  busyMs = 0;
  /** The subcommand of each process, in the order they started (`rev-parse`, `worktree`…). */
  readonly subcommands: string[] = [];
  private running = 0;
  private busySince = 0;

  started(args: readonly string[]): () => void {
    const startedAt = performance.now();
    this.commands++;
    this.subcommands.push(args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? '');
    if (this.running++ === 0) this.busySince = startedAt;
    return () => {
      const endedAt = performance.now();
      this.totalMs += endedAt - startedAt;
      if (--this.running === 0) this.busyMs += endedAt - this.busySince;
    };
  }
}
