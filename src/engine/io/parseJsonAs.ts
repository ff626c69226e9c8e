import type * as z from 'zod';

/**
 * `text` as JSON of `schema`'s shape, or undefined when it is not JSON or not of that shape: for the
 * files Taskloom reads back (its caches, its lock, a project's manifest), where anything else is
 * read as "not there".
 */
export function parseJsonAs<T>(schema: z.ZodType<T>, text: string): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
