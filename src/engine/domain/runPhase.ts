import { isOpenAsSeen } from './pullRequestStatus';
import { resumeOutlook, type ResumeOutlook } from './resumeOutlook';
import { LIVE_RUN_STATUSES, type RunState, type RunStatus } from './runState';
import { RUN_STATUS_WORDS } from './stateWords';

/**
 * A run's phase as the user sees it: its status, except where no engine drives it. A live status
 * without an engine is a run whose window or engine went away ("stopped", resumable) — unless it
 * has nothing to drive: a plan waiting for a person's approval, or a run whose every task left
 * waits for a person (one being resolved by hand, say), which was not interrupted. A run that
 * keeps a person's own pull request green (`watch --pr`) is watching it while it is open.
 */
export type RunPhase = RunStatus | 'awaitingApproval' | 'stopped' | 'watching';

/** `state`: the run's state when it is loaded (without it, a planning run is taken as drafted). */
export function runPhase(status: RunStatus, driven: boolean, state?: RunState): RunPhase {
  // A run made to keep a person's own pull request green has no tasks: it is its pull request.
  if (state && Object.values(state.pullRequests).some((pr) => pr.adopted && isOpenAsSeen(pr))) return 'watching';
  if (driven || !LIVE_RUN_STATUSES.has(status)) return status;
  if (status === 'planning') return (state?.plan.tasks.length ?? 1) > 0 ? 'awaitingApproval' : 'stopped';
  return state && resumeOutlook(state).kind === 'waitsForYou' ? 'needs_human' : 'stopped';
}

/** The phase in the one vocabulary of run states: the tree, the status bar, the run view and the chat say these. */
export const RUN_PHASE_WORDS: Record<RunPhase, string> = {
  ...RUN_STATUS_WORDS,
  awaitingApproval: 'plan awaits your approval',
  stopped: 'stopped',
  watching: 'watching a pull request',
};

/** Phases of a run nobody drives that may still go on: by Resume, by a person's decision, or by starting it again. */
const STOPPED_PHASES: ReadonlySet<RunPhase> = new Set<RunPhase>(['stopped', 'paused', 'needs_human', 'failed', 'cancelled']);

export const isStoppedPhase = (phase: RunPhase): boolean => STOPPED_PHASES.has(phase);

/**
 * What Resume would do for a stopped run (resumeOutlook.ts), or undefined while nobody may resume
 * it: an engine drives it, it is complete, or its plan waits for approval. Every view offers the
 * next step by this one answer.
 */
export function stoppedRunOutlook(state: RunState, driven: boolean): ResumeOutlook | undefined {
  return isStoppedPhase(runPhase(state.status, driven, state)) ? resumeOutlook(state) : undefined;
}
