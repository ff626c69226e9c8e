import type { DecisionFactOf } from '../domain/decisionFact';
import type { CandidatePicker } from '../domain/events';

type CandidateFact = DecisionFactOf<'candidate_finished'> | DecisionFactOf<'candidate_skipped'> | DecisionFactOf<'candidate_picked'>;

const PICKER_WORDS: Record<CandidatePicker, string> = { critic: 'the critic', gate: 'the gate', person: 'a person' };

/** The ledger's words for a task's candidates: each one's gate, those a budget kept from starting, and the pick with its reasons. */
export function candidateDecisionWords(f: CandidateFact): { summary: string; details?: string[] } {
  switch (f.type) {
    case 'candidate_finished': {
      if (f.failure) return { summary: `Candidate ${f.candidate} counts as failed: ${f.failure}` };
      if (f.passed) return { summary: `Candidate ${f.candidate}: gate passed` };
      const failed = f.failed;
      const how = failed ? `\`${failed.command}\` ${failed.timedOut ? 'timed out' : `exited ${failed.exitCode}`}` : 'no change to gate';
      return { summary: `Candidate ${f.candidate}: gate failed: ${how}`, ...(failed ? { details: failed.excerpt } : {}) };
    }
    case 'candidate_skipped':
      return { summary: `Candidate ${f.candidate} not started: ${f.reason}` };
    case 'candidate_picked': {
      const among = f.passed.length ? `of the candidates that passed the gate (${f.passed.join(', ')})` : 'no candidate passed the gate; the task goes on from the one that failed least';
      return { summary: `Candidate ${f.candidate} picked by ${PICKER_WORDS[f.by]}: ${among}`, details: f.reasons.split('\n') };
    }
  }
}
