import * as z from 'zod';

/**
 * The JSON schema of `schema` as agents take it for structured output: without the `$schema`
 * dialect key, which Claude Code's --json-schema rejects ("no schema with key or ref …").
 */
export function agentJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}
