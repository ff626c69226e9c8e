import * as z from 'zod';
import type { PlanTask } from '../domain/plan';
import { agentJsonSchema } from './agentJsonSchema';
import { fencedDiff } from '../text/untrustedText';
import { answerCandidates } from './criticRubric';

/** One candidate as the critic compares it: its number, who built it, and its diff against the task's base. */
export interface ComparedCandidate {
  candidate: number;
  agent: string;
  diff: string;
  gateCommands: string[];
}

/** The critic's choice among a task's candidates. */
export interface CandidateChoice {
  pick: number;
  reasons: string;
}

const choiceSchema = z.object({ pick: z.number().int().positive(), reasons: z.string().min(1) });

export const CANDIDATE_CHOICE_JSON_SCHEMA = agentJsonSchema(z.strictObject({ pick: z.number(), reasons: z.string() }));

/** Longest diff of one candidate shown in full: N candidates must not make a prompt N times too long to read. */
const DIFF_CHARS = 40_000;

/**
 * The critic's brief when several candidates of one task passed the gate: compare them against the
 * task's acceptance and pick one, with reasons. The diffs are the agents' work, shown as data.
 */
export function compareCandidatesPrompt(task: PlanTask, candidates: readonly ComparedCandidate[]): string {
  const shown = candidates.map((c) => {
    const diff = c.diff.length > DIFF_CHARS ? `${c.diff.slice(0, DIFF_CHARS)}\n… (${c.diff.length - DIFF_CHARS} more characters)` : c.diff;
    return `Candidate ${c.candidate} (built by ${c.agent}; gate passed: ${c.gateCommands.join(', ') || 'no gate commands'}):\n${fencedDiff(diff)}`;
  });
  return [
    `Several candidates were built for task ${task.id}: ${task.title}, each on its own, and each passed the mechanical gate.`,
    task.description,
    task.acceptance.length ? `Acceptance criteria:\n${task.acceptance.map((a) => `- ${a}`).join('\n')}` : '',
    ...shown,
    'Compare them against the task and its acceptance criteria: correctness, completeness, tests, and the smallest change that does the job. Pick the one that should be merged.',
    `Answer with JSON only: {"pick": the candidate's number (one of ${candidates.map((c) => c.candidate).join(', ')}), "reasons": why it is better than the others, in a few sentences}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The critic's choice from its structured output or the first JSON in its text, when it names one of `offered`. */
export function parseCandidateChoice(structured: unknown, text: string, offered: readonly number[]): CandidateChoice | undefined {
  for (const answer of answerCandidates(structured, text)) {
    const parsed = choiceSchema.safeParse(answer);
    if (parsed.success && offered.includes(parsed.data.pick)) return parsed.data;
  }
  return undefined;
}
