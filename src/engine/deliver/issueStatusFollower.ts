import type { Forge } from '../forge/forge';
import type { RunSession } from '../session/runSession';
import type { RunState } from '../domain/runState';
import { issueDiscardedComment } from '../text/issueStatusWords';
import { keepIssueStatus, postIssueStatus, type IssueStatusKeeper } from './issueStatus';
import { forgeFor } from './pullRequests';

/** How a door reaches the forge: a token it has (the editor's GitHub sign-in) and GitHub Enterprise's API; otherwise the environment's. */
export interface ForgeAccess {
  token?: string;
  apiUrl?: string;
}

/** The access a door's parameters name, without the keys it leaves unset. */
export const forgeAccessOf = (given: { token?: string | undefined; apiUrl?: string | undefined }): ForgeAccess => ({
  ...(given.token ? { token: given.token } : {}),
  ...(given.apiUrl ? { apiUrl: given.apiUrl } : {}),
});

/**
 * Keeps the one status comment of every run from an issue current, whatever moves the run: each
 * session the engine opens (run, resume, retry, accept, pr, watch…) is followed, one keeper per
 * run, so two sessions of a run never race to post two comments. A run that becomes one from an
 * issue (its `run_issue` event) is followed from then on. What the forge refused is a warning in
 * the run (seen live, and in the ledger) once per distinct failure, never an error of the step that moved it.
 */
export class IssueStatusFollower {
  private readonly keepers = new Map<string, IssueStatusKeeper>();
  private access: ForgeAccess = {};

  /**
   * `configured`: the access the repository's settings give (read only when an issue's forge is
   * first reached, not whenever an engine opens); what a door passes to reachWith goes over it.
   */
  constructor(
    private readonly repoRoot: string,
    private readonly configured: () => ForgeAccess = () => ({}),
  ) {}

  /**
   * How the next issue's forge is reached, over what was set before and the configured access (a
   * door's token keeps the repository's API URL); a run's issue already followed keeps the access it was reached with.
   */
  reachWith(access: ForgeAccess): void {
    this.access = { ...this.access, ...access };
  }

  follow(session: RunSession): void {
    if (session.state.issue) return this.keep(session);
    const stop = session.onEvent((event) => {
      if (event.type !== 'run_issue') return;
      stop();
      this.keep(session);
    });
  }

  /**
   * The run was discarded: its comment's last words say so, once what was on its way is posted.
   * Answers why that failed, if it did (the run, whose warnings would say it, is gone).
   */
  async discarded(state: RunState): Promise<Error | undefined> {
    if (!state.issue) return undefined;
    const kept = this.keepers.get(state.runId);
    this.keepers.delete(state.runId);
    await kept?.stop();
    return this.forgeOf(state.issue.repo)
      .then((forge) => postIssueStatus(forge, state, undefined, issueDiscardedComment(state)))
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
  }

  /** Posts each run's status as it is now and waits for it. */
  async settle(): Promise<void> {
    const keepers = [...this.keepers.values()];
    this.keepers.clear();
    await Promise.all(keepers.map((keeper) => keeper.settle()));
  }

  private keep(session: RunSession): void {
    const kept = this.keepers.get(session.runId);
    if (kept) return kept.follow(session);
    const warned = new Set<string>();
    const warn = (error: Error) => {
      if (warned.has(error.message)) return;
      warned.add(error.message);
      try {
        session.emit({ type: 'warning', message: `the issue's status comment was not updated: ${error.message}` });
      } catch {
        // The run's store may be closed by now; the comment never fails anything.
      }
    };
    this.keepers.set(session.runId, keepIssueStatus(session, this.forgeOf(session.state.issue!.repo), warn));
  }

  private forgeOf(repo: string): Promise<Forge> {
    const forge = forgeFor(this.repoRoot, { remote: 'origin', repo, ...this.configured(), ...this.access });
    // Its failure is each update's, told as a warning; not an unhandled rejection meanwhile.
    forge.catch(() => undefined);
    return forge;
  }
}
