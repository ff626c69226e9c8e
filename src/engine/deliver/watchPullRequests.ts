import { setTimeout as sleep } from 'node:timers/promises';
import type { EventOf } from '../domain/events';
import type { NextStep } from '../domain/nextStep';
import type { PullRequestRecord } from '../domain/runState';
import { errorText } from '../domain/taskloomError';
import { ForgeError, type PullRequestStatus } from '../forge/forge';
import { finishInterruptedReaction, startReaction, type WatchContext } from './pullRequestReaction';
import { screenForgeInput, type ScreenedStatus } from './screenForgeInput';
import { nextWatchStep, reactionInputFor, reviewVerdict, type WatchLimits } from './watchDecision';

export interface WatchOptions {
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

/** One look at every pull request of the run: it reacted (look again at once), waits, or `watch` ends. */
export type WatchPass =
  | { kind: 'reacted' }
  | { kind: 'waiting'; reasons: string[] }
  | { kind: 'ended'; outcome: 'green' | 'merged' | 'needs_human'; reasons: string[]; next?: string; steps?: NextStep[] };

/**
 * Polls each of the run's pull requests (checks, reviews, mergeability), screens what it read
 * (screenForgeInput: input from people without write access is left alone and recorded as such),
 * records what changed, and reacts to the first thing that needs a fix (see watchDecision and pullRequestReaction),
 * finishing first any reaction a stopped `watch` left unfinished. Needs the workspace lock only
 * for the pass itself, so the editor can take it per pass and leave the workspace free between.
 */
export async function watchPass(ctx: WatchContext, tell: (pr: PullRequestRecord, line: string) => void = () => {}): Promise<WatchPass> {
  const { session } = ctx;
  const limits = watchLimits(ctx);
  const reasons: string[] = [];
  const ended: Array<{ pr: PullRequestRecord; outcome: 'green' | 'merged'; reason: string }> = [];
  for (const pr of watchedPullRequests(session.state.pullRequests)) {
    const screened = await screenForgeInput(await ctx.forge.status(pr.number), ctx.trust);
    recordIgnored(ctx, pr, screened.ignored);
    const { status } = screened;
    record(ctx, pr, status);
    const interrupted = pr.reactions.find((r) => r.status === 'running');
    if (interrupted) {
      tell(pr, `finishing reaction ${interrupted.id} (${interrupted.summary}), which a stopped watch left unfinished`);
      await finishInterruptedReaction(ctx, pr, interrupted, status, reactionInputFor(status, interrupted.kind, interrupted.signals, interrupted.summary));
      return { kind: 'reacted' };
    }
    const step = nextWatchStep(status, pr, limits);
    if (step.kind === 'react') {
      await startReaction(ctx, pr, status, step.input);
      return { kind: 'reacted' };
    }
    if (step.kind === 'human') {
      end(ctx, pr, 'needs_human', step.reason);
      const runId = ctx.session.runId;
      const steps: NextStep[] = [{ kind: 'keepPullRequestGreen', runId }, ...(step.closed ? [{ kind: 'openPullRequest' as const, runId }] : [])];
      return { kind: 'ended', outcome: 'needs_human', reasons: [`Pull request #${pr.number} needs you: ${step.reason}`], next: step.next, steps };
    }
    if (step.kind === 'done') {
      ended.push({ pr, outcome: step.outcome, reason: step.reason });
      reasons.push(`Pull request #${pr.number} ${step.outcome === 'merged' ? 'was merged' : 'is green'}: ${step.reason}`);
      continue;
    }
    tell(pr, step.reason);
    reasons.push(`Pull request #${pr.number}: ${step.reason}`);
  }
  if (ended.length < watchedPullRequests(session.state.pullRequests).length) return { kind: 'waiting', reasons };
  for (const { pr, outcome, reason } of ended) end(ctx, pr, outcome, reason);
  return { kind: 'ended', outcome: ended.every((e) => e.outcome === 'merged') ? 'merged' : 'green', reasons };
}

/**
 * Keeps the run's pull requests green: a pass (see watchPass) after another, `intervalMs` apart
 * while waiting, until they are green or merged, one needs a person, the timeout passes or the
 * signal aborts. A forge that fails a few polls in a row (network, rate limit) ends it with its
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
      pass = await watchPass(ctx, tell);
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

/** The pull requests `watch` looks after: the run's, or each task's in a stack. */
export function watchedPullRequests(pullRequests: Record<string, PullRequestRecord>): PullRequestRecord[] {
  return Object.values(pullRequests);
}

/** Fixes per kind before a person is asked: the run's own attempt limits. */
function watchLimits(ctx: WatchContext): WatchLimits {
  const { config } = ctx.session.state;
  return { checkFixes: config.maxGateFixAttempts, reviewFixes: config.maxReviewCycles, conflictFixes: config.maxGateFixAttempts };
}

/** Records what the forge says, when it differs from what was recorded last. */
function record(ctx: WatchContext, pr: PullRequestRecord, status: PullRequestStatus): void {
  const seen: Omit<EventOf<'pr_observed'>, 'seq' | 'runId' | 'at' | 'v'> = {
    type: 'pr_observed',
    number: pr.number,
    headSha: status.pullRequest.headSha,
    state: status.pullRequest.state,
    mergeable: status.pullRequest.mergeable,
    checks: status.checks.map((c) => ({ name: c.name, status: c.status })),
    review: reviewVerdict(status.reviews),
  };
  const { at: _at, ...before } = pr.observed ?? { at: '' };
  const { type: _type, ...now } = seen;
  if (JSON.stringify(before) !== JSON.stringify(now)) ctx.session.emit(seen);
}

/** Records each input left alone the first time it is seen (a restarted watch does not record it again). */
function recordIgnored(ctx: WatchContext, pr: PullRequestRecord, ignored: ScreenedStatus['ignored']): void {
  for (const input of ignored) {
    if (pr.ignored?.some((i) => i.input === input.input && i.id === input.id)) continue;
    ctx.session.emit({ type: 'pr_input_ignored', number: pr.number, ...input });
  }
}

function end(ctx: WatchContext, pr: PullRequestRecord, outcome: EventOf<'pr_watch_ended'>['outcome'], reason: string): void {
  const last = pr.watch;
  if (last?.outcome === outcome && last.reason === reason) return;
  ctx.session.emit({ type: 'pr_watch_ended', number: pr.number, outcome, reason });
}
