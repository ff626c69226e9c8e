import { AuthorTrust } from '../deliver/authorTrust';
import type { ForgeAccess } from '../deliver/issueStatusFollower';
import { watchedPullRequests, type WatchMode } from '../deliver/watchPass';
import { WatchTurns } from '../deliver/watchPullRequests';
import type { RunState } from '../domain/runState';
import type { Forge } from '../forge/forge';
import type { RunSession } from '../session/runSession';
import type { RunStore } from '../store/runStore';
import type { FrontDoor } from './frontDoor';
import { watchTarget } from './keepPullRequestsGreen';

/** How `watch --issues` treats the pull requests it keeps green: `watch RUN`'s flags, watching until merged or closed. */
export interface IssuePullRequestMode extends Omit<WatchMode, 'once'> {
  trustedBots: readonly string[];
}

/** What keeping the issue runs' pull requests green did, as data, for the door to word (`number`: the issue's). */
export type IssuePullRequestNews =
  /** A line of `watch RUN`'s about one of the run's pull requests (`#N is green…`, `#N needs you…`), told when it changes. */
  | { kind: 'pullRequestProgress'; number: number; runId: string; line: string }
  /** Every pull request of the run is merged, closed or needs a person: looked at again each poll, told again only when this changes. */
  | { kind: 'pullRequestsSettled'; number: number; runId: string; outcome: 'green' | 'merged' | 'needs_human'; reasons: string[]; next?: string }
  | { kind: 'pullRequestsFailed'; number: number; runId: string; error: Error };

/** How the door hears what the passes do. */
export interface IssuePullRequestListener {
  tell(news: IssuePullRequestNews): void;
  /** Hears the run's events while a pass looks at its pull requests (a fix's agents, gate, push); returns how to stop. */
  follow(session: RunSession): () => void;
}

/** A run of one of the repository's issues, as the store has it. */
export interface IssueRun {
  runId: string;
  number: number;
  state: RunState;
}

/** The runs here of `repo`'s issues (their `run_issue`). */
export function issueRuns(store: RunStore, repo: string): IssueRun[] {
  const runs: IssueRun[] = [];
  for (const { runId } of store.listRuns()) {
    let state;
    try {
      state = store.state(runId);
    } catch {
      continue; // a run whose log does not load is listed by `runs` with why; it is no issue's run here
    }
    if (state.issue && state.issue.repo.toLowerCase() === repo.toLowerCase()) runs.push({ runId, number: state.issue.number, state });
  }
  return runs;
}

/** What one run's watch keeps between passes: its session, forge, what it learnt of authors, what it told. */
interface RunWatch {
  session: RunSession;
  forge: Forge;
  trust: AuthorTrust;
  turns: WatchTurns;
  settled?: string;
}

/**
 * `watch --issues`' other half: keeps the pull requests of the repository's issue runs green with
 * `watch RUN`'s passes (watchPass through the engine, settled by WatchTurns), a run at a time, each
 * looked at until it has nothing to do now. A run is watched while one of its pull requests is
 * neither merged nor closed, found in the store on every pass: the pull requests this watch opened,
 * those of earlier watches and of `run --issue`. One run failing is told and tried again next pass.
 */
export class IssuePullRequests {
  private readonly watches = new Map<string, RunWatch>();

  constructor(
    private readonly door: FrontDoor,
    private readonly repo: string,
    private readonly mode: IssuePullRequestMode,
    private readonly access: ForgeAccess,
    private readonly listener: IssuePullRequestListener,
  ) {}

  async pass(signal: AbortSignal): Promise<void> {
    for (const run of issueRuns(this.door.engine.store, this.repo)) {
      if (signal.aborted) return;
      if (!openPullRequestIn(run.state)) continue;
      await this.passOver(run, signal).catch((error: unknown) => {
        // Stopped mid-fix: the run's log holds the reaction under way, and the next watch finishes it.
        if (!signal.aborted) this.listener.tell({ kind: 'pullRequestsFailed', number: run.number, runId: run.runId, error: error as Error });
      });
    }
  }

  private async passOver({ runId, number }: IssueRun, signal: AbortSignal): Promise<void> {
    const watch = this.watches.get(runId) ?? (await this.startWatching(runId, number));
    const stop = this.listener.follow(watch.session);
    try {
      const mode = { ...this.mode, once: false };
      const pass = await watch.turns.settle((tell) => this.door.engine.watchPass(watch.session, watch.forge, watch.trust, mode, signal, tell), signal);
      if (pass.kind !== 'ended') {
        watch.settled = undefined;
        return;
      }
      const settled = JSON.stringify([pass.outcome, pass.reasons]);
      if (watch.settled === settled) return;
      watch.settled = settled;
      this.listener.tell({ kind: 'pullRequestsSettled', number, runId, outcome: pass.outcome, reasons: pass.reasons, ...(pass.next ? { next: pass.next } : {}) });
    } finally {
      stop();
    }
  }

  private async startWatching(runId: string, number: number): Promise<RunWatch> {
    const { forge } = await watchTarget(this.door.engine.store, { runId, ...this.access });
    const turns = new WatchTurns((line) => this.listener.tell({ kind: 'pullRequestProgress', number, runId, line }));
    const watch: RunWatch = { session: this.door.session(runId), forge, trust: new AuthorTrust(forge, this.mode.trustedBots), turns };
    this.watches.set(runId, watch);
    return watch;
  }
}

/** Whether the run has a pull request still to keep green: one neither merged nor closed, as last seen. */
const openPullRequestIn = (state: RunState): boolean =>
  watchedPullRequests(state.pullRequests).some((pr) => pr.observed?.state !== 'merged' && pr.observed?.state !== 'closed' && pr.watch?.outcome !== 'merged');
