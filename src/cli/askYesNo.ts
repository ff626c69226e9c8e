import { createInterface } from 'node:readline/promises';
import { UsageError } from './cliErrors';

/**
 * Asks a yes/no question in a terminal (default no). Without a terminal nobody can answer, so it
 * refuses with `refusal` and tells how to say yes up front (`--yes`).
 */
export async function askYesNo(question: string, refusal: { message: string; hint: string }): Promise<boolean> {
  if (!process.stdin.isTTY) throw new UsageError(refusal.message, refusal.hint);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
