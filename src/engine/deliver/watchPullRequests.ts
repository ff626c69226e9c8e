import { setTimeout as sleep } from 'node:timers/promises';
import type { NextStep } from '../domain/nextStep';
import type { PullRequestRecord } from '../domain/runState';
import { errorText } from '../domain/taskloomError';
import { ForgeError } from '../forge/forge';
import type { WatchContext } from './pullRequestReaction';
import { watchPass, type WatchMode, type WatchPass } from './watchPass';

export interface WatchOptions extends WatchMode {
  intervalMs: number;
  /** Stop waiting after this long (the pull request is left as it is); undefined: no limit. */
  timeoutMs?: number;
  /** A line for the person watching, each time what `watch` waits for or does changes. */
  onProgress?: (line: string) => void;
}

export interface WatchOutcome {
  outcome: 'green' | 'merged' | 'needs_human' | 'timeout' | 'cancelled';
  /** One line per pull request: where it stands. */
  reasons: string[];
  /** What the person can do next, when something is theirs to do: in words, and the steps they speak of. */
  next?: string;
  steps?: NextStep[];
}

/** Polls that fail in a row (network, a rate limit) before `watch` gives up with the forge's error. */
const POLL_FAILURE_LIMIT = 3;
/** How often a watch asks the forge, unless told (`--interval`, `taskloom.pullRequests.pollSeconds`). */
export const WATCH_INTERVAL_SECONDS = 30;
/** How long a pull request may stay red with no progress before `watch` escalates it, unless told (`--escalate-after`, `taskloom.pullRequests.escalateAfterMinutes`). */
export const WATCH_ESCALATE_AFTER_MINUTES = 60;

/**
 * Keeps the run's pull requests green: a pass (see watchPass) after another, `intervalMs` apart
 * while waiting, until every one is merged, closed or needs a person (with `once`, also green), the
 * timeout passes or the signal aborts. A forge that fails a few polls in a row (network, rate limit) ends it with its
 * error. Everything it saw and did is in the run's log, so a second `watch` carries on.
 */
export async function watchPullRequests(ctx: WatchContext, options: WatchOptions): Promise<WatchOutcome> {
  const started = Date.now();
  const turns = new WatchTurns(options.onProgress);
  for (;;) {
    if (ctx.signal.aborted) return { outcome: 'cancelled', reasons: ['watch was stopped'] };
    const pass = await turns.settle((tell) => watchPass(ctx, options, tell), ctx.signal);
    if (pass.kind === 'ended') return { outcome: pass.outcome, reasons: pass.reasons, ...(pass.next ? { next: pass.next, steps: pass.steps ?? [] } : {}) };
    if (pass.kind === 'reacted') continue;
    if (options.timeoutMs !== undefined && Date.now() - started >= options.timeoutMs) {
      return { outcome: 'timeout', reasons: pass.reasons, next: 'Nothing was lost; watch again to go on.', steps: [{ kind: 'keepPullRequestGreen', runId: ctx.session.runId }] };
    }
    try {
      await sleep(options.intervalMs, undefined, { signal: ctx.signal });
    } catch {
      return { outcome: 'cancelled', reasons: ['watch was stopped'] };
    }
  }
}

/**
 * What one watch of a run's pull requests keeps from a pass to the next, for every door that
 * watches (`watch RUN`, the editor's pass-by-pass watch, `watch --issues`): each pull request's line
 * is told once until it changes, and a forge failing a few polls in a row ends the watch.
 */
export class WatchTurns {
  private readonly said = new Map<number, string>();
  private failures = 0;

  constructor(private readonly onProgress: (line: string) => void = () => {}) {}

  /**
   * Passes (`look`, see watchPass) until one finds nothing to do now: after a fix it looks again at
   * once, so what comes back waits or ends (`reacted` only when `signal` stopped it between two). A
   * forge that fails is a wait, until it failed POLL_FAILURE_LIMIT passes in a row: then its error.
   */
  async settle(look: (tell: (pr: PullRequestRecord, line: string) => void) => Promise<WatchPass>, signal: AbortSignal): Promise<WatchPass> {
    for (;;) {
      let pass: WatchPass;
      try {
        pass = await look(this.tell);
        this.failures = 0;
      } catch (error) {
        if (!(error instanceof ForgeError) || ++this.failures >= POLL_FAILURE_LIMIT) throw error;
        this.onProgress(`cannot reach the forge (${errorText(error)}); trying again`);
        return { kind: 'waiting', reasons: [errorText(error)] };
      }
      if (pass.kind !== 'reacted' || signal.aborted) return pass;
    }
  }

  private readonly tell = (pr: PullRequestRecord, line: string): void => {
    if (this.said.get(pr.number) === line) return;
    this.said.set(pr.number, line);
    this.onProgress(`#${pr.number} ${line}`);
  };
}
