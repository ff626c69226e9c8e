import type { EventOf } from '../domain/events';
import type { NextStep } from '../domain/nextStep';
import { escalationDue } from '../domain/pullRequestStatus';
import type { PullRequestRecord } from '../domain/runState';
import type { PullRequestStatus } from '../forge/forge';
import { autoMerge } from './autoMerge';
import { finishInterruptedReaction, startReaction, type WatchContext } from './pullRequestReaction';
import { screenForgeInput, type ScreenedStatus } from './screenForgeInput';
import { nextWatchStep, reactionInputFor, reviewVerdict, type StackParent, type WatchLimits } from './watchDecision';

/** How a watch treats its pull requests: what the CLI's flags and the editor's settings choose. */
export interface WatchMode {
  /** End each pull request once it is green (`watch --once`), instead of watching it until it is merged or closed. */
  once: boolean;
  /** Escalate a pull request red this long with no progress (`--escalate-after`); undefined or 0: never. */
  escalateAfterMs?: number;
  /** Merge a green pull request that someone with write access approved (`--auto-merge`). */
  autoMerge: boolean;
}

/** One look at every pull request of the run: it reacted (look again at once), waits, or `watch` ends. */
export type WatchPass =
  | { kind: 'reacted' }
  | { kind: 'waiting'; reasons: string[] }
  | { kind: 'ended'; outcome: 'green' | 'merged' | 'needs_human'; reasons: string[]; next?: string; steps?: NextStep[] };

/** Where one pull request stands after a look: still watched, or finished for this watch. */
interface Standing {
  finished?: 'green' | 'merged' | 'needs_human';
  reason: string;
  next?: string;
  closed?: true;
}

/**
 * Polls each of the run's pull requests (checks, reviews, mergeability), screens what it read
 * (screenForgeInput: input from people without write access is left alone and recorded as such),
 * records what changed, escalates one red too long, and reacts to the first thing that needs a fix
 * (see watchDecision and pullRequestReaction), finishing first any reaction a stopped `watch` left
 * unfinished. Each pull request stands on its own: one that needs a person is recorded as such and
 * the others go on. The pass ends the watch once every one is merged, closed or needs a person (with
 * `once`, also green). Needs the workspace lock only for the pass itself, so the editor can take it
 * per pass and leave the workspace free between.
 */
export async function watchPass(ctx: WatchContext, mode: WatchMode, tell: (pr: PullRequestRecord, line: string) => void = () => {}): Promise<WatchPass> {
  const limits = watchLimits(ctx);
  const seen = new Map<string, PullRequestStatus>();
  const standings: Array<{ pr: PullRequestRecord; standing: Standing }> = [];
  // Every pull request is looked at before any is acted on, so a stacked child is judged by its parent as it is now.
  const acts: Array<() => Promise<boolean>> = [];
  for (const watched of watchedPullRequests(ctx.session.state.pullRequests)) {
    if (watched.watch?.outcome === 'merged' || watched.observed?.state === 'merged') {
      standings.push({ pr: watched, standing: { finished: 'merged', reason: 'was merged' } });
      continue;
    }
    const screened = await screenForgeInput(await ctx.forge.status(watched.number), ctx.trust);
    recordIgnored(ctx, watched, screened.ignored);
    const { status } = screened;
    const before = watched.observed;
    record(ctx, watched, status);
    const pr = recordOf(ctx, watched.number);
    seen.set(status.pullRequest.head, status);
    if (before && isGreen(before) && pr.red) tell(pr, `turned red again at ${pr.red.headSha.slice(0, 10)}: ${pr.red.red === 'conflict' ? `conflicts with ${pr.base}` : `failing: ${pr.red.failing.join(', ')}`}`);
    const interrupted = pr.reactions.find((r) => r.status === 'running');
    if (interrupted) {
      tell(pr, `finishing reaction ${interrupted.id} (${interrupted.summary}), which a stopped watch left unfinished`);
      await finishInterruptedReaction(ctx, pr, interrupted, status, reactionInputFor(status, interrupted.kind, interrupted.signals, interrupted.summary));
      return { kind: 'reacted' };
    }
    escalate(ctx, pr, mode);
    const parentStatus = seen.get(status.pullRequest.base);
    const parent: StackParent | undefined = parentStatus?.pullRequest.state === 'open' ? { number: parentStatus.pullRequest.number, mergeable: parentStatus.pullRequest.mergeable } : undefined;
    const step = nextWatchStep(status, pr, limits, parent);
    if (step.kind === 'react') {
      acts.push(() => startReaction(ctx, pr, status, step.input).then(() => true));
      standings.push({ pr, standing: { reason: `is being fixed: ${step.input.summary}` } });
    } else if (step.kind === 'human') {
      end(ctx, pr, 'needs_human', step.reason);
      tell(pr, `needs you: ${step.reason}. ${step.next}`);
      standings.push({ pr, standing: { finished: 'needs_human', reason: `needs you: ${step.reason}`, next: step.next, ...(step.closed ? { closed: true as const } : {}) } });
    } else if (step.kind === 'done') {
      end(ctx, pr, 'merged', step.reason);
      standings.push({ pr, standing: { finished: 'merged', reason: `was ${step.reason}` } });
    } else if (step.kind === 'green' && mode.once) {
      end(ctx, pr, 'green', step.reason);
      standings.push({ pr, standing: { finished: 'green', reason: `is green: ${step.reason}` } });
    } else if (step.kind === 'green') {
      const green = `is green: ${step.reason}`;
      if (mode.autoMerge) acts.push(() => mergeIfApproved(ctx, pr, status, parent !== undefined, (why) => tell(pr, `${green}; ${why}`)));
      else tell(pr, `${green}; watching until it is merged or closed`);
      standings.push({ pr, standing: { reason: `is green: ${step.reason}` } });
    } else {
      tell(pr, step.reason);
      standings.push({ pr, standing: { reason: step.reason } });
    }
  }
  for (const act of acts) if (await act()) return { kind: 'reacted' };
  const reasons = standings.map(({ pr, standing }) => `Pull request #${pr.number} ${standing.reason}`);
  if (standings.some(({ standing }) => !standing.finished)) return { kind: 'waiting', reasons };
  return ended(ctx, standings, reasons);
}

/** Merges a green pull request when it may be (see autoMerge), or says why not. Whether it merged. */
async function mergeIfApproved(ctx: WatchContext, pr: PullRequestRecord, status: PullRequestStatus, basedOnOpenPullRequest: boolean, sayWhyNot: (why: string) => void): Promise<boolean> {
  const notMerged = await autoMerge(ctx, pr, status, basedOnOpenPullRequest);
  if (notMerged) sayWhyNot(notMerged);
  return notMerged === undefined;
}

function ended(ctx: WatchContext, standings: Array<{ pr: PullRequestRecord; standing: Standing }>, reasons: string[]): WatchPass {
  const needing = standings.filter(({ standing }) => standing.finished === 'needs_human');
  if (!needing.length) return { kind: 'ended', outcome: standings.every(({ standing }) => standing.finished === 'merged') ? 'merged' : 'green', reasons };
  const runId = ctx.session.runId;
  const next = needing.map(({ pr, standing }) => (needing.length > 1 ? `#${pr.number}: ${standing.next}` : standing.next)).join(' ');
  const steps: NextStep[] = [{ kind: 'keepPullRequestGreen', runId }, ...(needing.some(({ standing }) => standing.closed) ? [{ kind: 'openPullRequest' as const, runId }] : [])];
  return { kind: 'ended', outcome: 'needs_human', reasons, next, steps };
}

/** The pull requests `watch` looks after: the run's, or each task's in a stack (parents before their children). */
export function watchedPullRequests(pullRequests: Record<string, PullRequestRecord>): PullRequestRecord[] {
  return Object.values(pullRequests);
}

const isGreen = (observed: NonNullable<PullRequestRecord['observed']>): boolean =>
  observed.state === 'open' && observed.mergeable !== false && observed.checks.every((c) => c.status === 'success');

const recordOf = (ctx: WatchContext, number: number): PullRequestRecord => Object.values(ctx.session.state.pullRequests).find((p) => p.number === number)!;

/** Fixes per kind before a person is asked: the run's own attempt limits. */
function watchLimits(ctx: WatchContext): WatchLimits {
  const { config } = ctx.session.state;
  return { checkFixes: config.maxGateFixAttempts, reviewFixes: config.maxReviewCycles, conflictFixes: config.maxGateFixAttempts };
}

/** Records, once per red stretch, a pull request red for the mode's time with no new head. */
function escalate(ctx: WatchContext, pr: PullRequestRecord, mode: WatchMode): void {
  if (!pr.red || !escalationDue(pr, Date.now(), mode.escalateAfterMs)) return;
  const { headSha, since, red, failing } = pr.red;
  ctx.session.emit({ type: 'pull_request_escalated', number: pr.number, url: pr.url, headSha, red, failing, since, afterMinutes: mode.escalateAfterMs! / 60_000 });
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
