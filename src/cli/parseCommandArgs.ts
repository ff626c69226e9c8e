import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cliErrors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses one command's flags (every command takes --cwd); unknown flags are a usage error. */
export function parseCommandArgs(argv: string[], options: Options) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { cwd: { type: 'string' }, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const cwd = resolve((parsed.values.cwd as string | undefined) ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd: no such folder: ${cwd}`);
  return { values: parsed.values as Record<string, unknown>, positionals: parsed.positionals, cwd };
}
