import * as z from 'zod';

/**
 * The wire between ScriptedRunner and the scripted agent process: one JSON request on stdin,
 * JSON lines on stdout. Shaped like the real agents' stream output, so the runner exercises
 * the same parsing concerns (partial lines, a missing result, noise).
 */

export const agentRequestSchema = z.object({
  role: z.enum(['planner', 'actor', 'critic']),
  taskId: z.string().nullable(),
  attempt: z.number().int().positive(),
  purpose: z.enum(['resolve', 'fix', 'compare']).optional(),
  candidate: z.number().int().positive().optional(),
  scenarioPath: z.string(),
  prompt: z.string(),
});
export type AgentRequest = z.infer<typeof agentRequestSchema>;

export const activityLineSchema = z.object({
  type: z.literal('activity'),
  kind: z.enum(['text', 'tool', 'status']).default('status'),
  message: z.string(),
});
export type ActivityLine = z.input<typeof activityLineSchema>;

/** Printed while the agent "thinks": output that keeps the watchdog quiet, as a real agent's stream does, but no activity to show. */
export const heartbeatLineSchema = z.object({ type: z.literal('heartbeat') });
export type HeartbeatLine = z.infer<typeof heartbeatLineSchema>;

export const resultLineSchema = z.object({
  type: z.literal('result'),
  status: z.enum(['ok', 'agent_error', 'quota']),
  text: z.string(),
  structured: z.unknown().optional(),
  usage: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number(),
    cacheWriteTokens: z.number(),
  }),
  costUsd: z.number(),
  sessionId: z.string(),
});
export type ResultLine = z.infer<typeof resultLineSchema>;

export const agentLineSchema = z.discriminatedUnion('type', [activityLineSchema, heartbeatLineSchema, resultLineSchema]);
