import type { Forge } from '../forge/forge';
import type { RunSession } from '../session/runSession';
import { keepIssueStatus, type IssueStatusKeeper } from './issueStatus';
import { forgeFor } from './pullRequests';

/** How a door reaches the forge: a token it has (the editor's GitHub sign-in) and GitHub Enterprise's API; otherwise the environment's. */
export interface ForgeAccess {
  token?: string;
  apiUrl?: string;
}

/**
 * Keeps the one status comment of every run from an issue current, whatever moves the run: each
 * session the engine opens (run, resume, retry, accept, pr, watch…) is followed, one keeper per
 * run, so two sessions of a run never race to post two comments. A run that becomes one from an
 * issue (its `run_issue` event) is followed from then on. What the forge refused is a warning in
 * the run once per distinct failure, never an error of the step that moved it.
 */
export class IssueStatusFollower {
  /** Each run's keeper, with the session its warnings go to. */
  private readonly keepers = new Map<string, { keeper: IssueStatusKeeper; session: RunSession }>();
  private access: ForgeAccess = {};

  constructor(private readonly repoRoot: string) {}

  /** How the next issue's forge is reached (a run's issue already followed keeps the access it was reached with). */
  reachWith(access: ForgeAccess): void {
    this.access = access;
  }

  follow(session: RunSession): void {
    if (session.state.issue) return this.keep(session);
    const stop = session.onEvent((event) => {
      if (event.type !== 'run_issue') return;
      stop();
      this.keep(session);
    });
  }

  /** Posts each run's status as it is now and waits for it; what failed is a warning in the run, once per distinct failure. */
  async settle(): Promise<void> {
    const kept = [...this.keepers.values()];
    this.keepers.clear();
    await Promise.all(
      kept.map(async ({ keeper, session }) => {
        for (const message of new Set((await keeper.settle()).map((failure) => failure.message))) {
          try {
            session.emit({ type: 'warning', message: `the issue's status comment was not updated: ${message}` });
          } catch {
            // The run's store may be closed by now; the comment never fails anything.
          }
        }
      }),
    );
  }

  private keep(session: RunSession): void {
    const kept = this.keepers.get(session.runId);
    if (kept) return kept.keeper.follow(session);
    this.keepers.set(session.runId, { keeper: keepIssueStatus(session, this.forgeOf(session.state.issue!.repo)), session });
  }

  private forgeOf(repo: string): Promise<Forge> {
    const forge = forgeFor(this.repoRoot, { remote: 'origin', repo, ...this.access });
    // Its failure is each update's, said when settled; not an unhandled rejection meanwhile.
    forge.catch(() => undefined);
    return forge;
  }
}
