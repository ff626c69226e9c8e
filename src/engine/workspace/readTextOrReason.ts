import { readFileSync } from 'node:fs';

/** A file's text for an agent's prompt, or why it cannot be read (the prompt says so rather than failing). */
export function readTextOrReason(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return `(cannot be read: ${(error as Error).message})`;
  }
}
