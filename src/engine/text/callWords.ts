import type { AgentRole, CallPurpose } from '../domain/events';

/** An agent call as far as its words need: who, which of its calls, and what for. */
export interface CallKind {
  role: AgentRole;
  /** The call's own count, as RunnerInput has it: the actor's attempt (its resolution when resolving), the critic's review, the planner's draft. */
  attempt: number;
  purpose?: CallPurpose;
  /** The candidate whose actor made the call. */
  candidate?: number;
}

/**
 * Which call it is, numbered by what it counts: "attempt 2", "review 1", "resolution 1", "draft 1".
 * A critic's number counts its reviews, not the actor's attempts: under "Attempt 2" its first
 * review reads "review 1", never "attempt 1". `runLevel`: a call made for no task (planning).
 */
export function callNumberWords(call: CallKind, runLevel = false): string {
  if (call.purpose === 'fix') return `pull request fix ${call.attempt}`;
  if (call.purpose === 'resolve') return `resolution ${call.attempt}`;
  if (call.purpose === 'compare') return 'comparing the candidates';
  if (call.candidate !== undefined) return `candidate ${call.candidate}`;
  if (call.role === 'planner') return `draft ${call.attempt}`;
  if (call.role === 'critic') return runLevel ? `plan review ${call.attempt}` : `review ${call.attempt}`;
  return `attempt ${call.attempt}`;
}

/** "actor · attempt 2", "critic · review 1", "planner · draft 1": what a call was, in a few words. */
export const callWords = (call: CallKind, runLevel = false): string => `${call.role} · ${callNumberWords(call, runLevel)}`;
