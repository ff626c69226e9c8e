import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Guesses the project's own test command, so that a run without configured gate commands
 * still checks the agent's work mechanically. Returns [] when nothing recognisable is found.
 */
export function detectGateCommands(dir: string): string[] {
  if (hasRealNpmTestScript(dir)) return ['npm test'];
  if (existsSync(join(dir, 'Cargo.toml'))) return ['cargo test'];
  if (existsSync(join(dir, 'go.mod'))) return ['go test ./...'];
  if (hasMakeTestTarget(dir)) return ['make test'];
  if (existsSync(join(dir, 'pyproject.toml')) || existsSync(join(dir, 'pytest.ini'))) return ['python3 -m pytest'];
  return [];
}

function hasRealNpmTestScript(dir: string): boolean {
  const text = readIfExists(join(dir, 'package.json'));
  if (text === undefined) return false;
  let test: unknown;
  try {
    test = (JSON.parse(text) as { scripts?: { test?: unknown } }).scripts?.test;
  } catch {
    return false;
  }
  return typeof test === 'string' && test.trim() !== '' && !isNpmInitPlaceholder(test);
}

/** `npm init` writes a test script that only fails; running it would fail every task. */
export const isNpmInitPlaceholder = (script: string): boolean => /no test specified/i.test(script);

function hasMakeTestTarget(dir: string): boolean {
  const text = ['GNUmakefile', 'makefile', 'Makefile'].map((name) => readIfExists(join(dir, name))).find((t) => t !== undefined);
  // A rule line `test:` or `test: deps`, not a variable assignment such as `test := …`.
  return text !== undefined && /^test\s*:(?!=)/m.test(text);
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
