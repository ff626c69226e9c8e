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
  const said = new Map<number, string>();
  const tell = (pr: PullRequestRecord, line: string) => {
    if (said.get(pr.number) === line) return;
    said.set(pr.number, line);
    options.onProgress?.(`#${pr.number} ${line}`);
  };
  let failures = 0;
  for (;;) {
    if (ctx.signal.aborted) return { outcome: 'cancelled', reasons: ['watch was stopped'] };
    let pass: WatchPass;
    try {
      pass = await watchPass(ctx, options, tell);
      failures = 0;
    } catch (error) {
      if (!(error instanceof ForgeError) || ++failures >= POLL_FAILURE_LIMIT) throw error;
      options.onProgress?.(`cannot reach the forge (${errorText(error)}); trying again`);
      pass = { kind: 'waiting', reasons: [errorText(error)] };
    }
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

