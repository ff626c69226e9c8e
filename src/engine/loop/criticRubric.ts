import * as z from 'zod';
import { agentJsonSchema } from './agentJsonSchema';
import { FINDING_CATEGORIES, FINDING_SEVERITIES, type CriticVerdict } from '../domain/verdict';
import { jsonInText } from '../text/jsonInText';

// Lenient on read: agents answering a strict schema send null for "no file" / "no line".
const findingSchema = z.object({
  file: z.string().nullish().transform((v) => v ?? undefined),
  line: z.number().int().nonnegative().nullish().transform((v) => v ?? undefined),
  severity: z.enum(FINDING_SEVERITIES).catch('minor'),
  category: z.enum(FINDING_CATEGORIES).catch('other'),
  message: z.string().min(1),
});

export const criticVerdictSchema = z.object({
  decision: z.enum(['green', 'changes_required']),
  summary: z.string(),
  findings: z.array(findingSchema).default([]),
});

/**
 * The JSON schema handed to agents that support structured output. Strict (every property
 * required, nothing extra, null for "none"), as OpenAI's structured outputs demand.
 */
export const CRITIC_VERDICT_JSON_SCHEMA = agentJsonSchema(
  z.strictObject({
    decision: z.enum(['green', 'changes_required']),
    summary: z.string(),
    findings: z.array(
      z.strictObject({
        file: z.string().nullable(),
        line: z.number().nullable(),
        severity: z.enum(FINDING_SEVERITIES),
        category: z.enum(FINDING_CATEGORIES),
        message: z.string(),
      }),
    ),
  }),
);

/**
 * Reads a verdict from an agent's structured output or, failing that, from the first JSON
 * object in its text (agents often wrap JSON in prose or a code fence).
 */
export function parseCriticVerdict(structured: unknown, text: string): CriticVerdict | undefined {
  for (const candidate of answerCandidates(structured, text)) {
    const parsed = criticVerdictSchema.safeParse(candidate);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** The JSON values an agent's answer may hold, most trustworthy first: structured output, then JSON in the text. */
export function* answerCandidates(structured: unknown, text: string): Generator<unknown> {
  if (structured !== undefined) yield structured;
  yield* jsonInText(text);
}
