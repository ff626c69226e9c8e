import { checkoutPaths, type CheckoutPaths } from './checkoutPaths';
import { goTest } from './goTest';
import type { Invocation, RunnerKind } from './invocation';
import { jest } from './jest';
import { mocha } from './mocha';
import { nodeTest } from './nodeTest';
import { packageScriptCall } from './packageScripts';
import { pytest } from './pytest';
import { isAssignment, joinWords, ownWord, parseAndChain, type ShellWord } from './shellLine';
import type { RecognisedRunner } from './types';
import { vitest } from './vitest';

const RUNNERS: readonly RunnerKind[] = [nodeTest, jest, vitest, mocha, pytest, goTest];
/** npx options that only say whether it may download: Taskloom's own command never lets it (`--no-install`). */
const NPX_DOWNLOAD_CHOICE = new Set(['--no-install', '--no', '-y', '--yes']);

/**
 * The test runner a gate command runs, so the gate can read its results test by test and select
 * tests in the runner's own way; undefined = not recognised, and the gate compares that command
 * by its exit code. Recognised: a runner invoked directly (`node --test`, `jest`, `npx jest`,
 * `vitest run`, `mocha`, `pytest`, `python3 -m pytest`, `go test ./...`), or through
 * `npm test` / `npm run X` / `pnpm test` / `yarn test`, whose package.json script is read one level
 * deep (and then run directly, with its `node_modules/.bin` on PATH as npm puts it: npm would not
 * pass Taskloom's flags to the runner alone). The runner may end a chain `a && b && runner`; the
 * earlier parts still run first. Not recognised, because what would run is not known without
 * running it or is not one runner: pipes, `||`, `;`, variables, substitutions, a `cd` (the
 * runner's paths would be another folder's), two runners, options that choose the runner's own
 * report or never end (`--watch`). A RecognisedRunner is bound to `cwd`: recognise once per checkout.
 */
export function recogniseRunner(command: string, cwd: string): RecognisedRunner | undefined {
  const parts = parseAndChain(command);
  if (!parts) return undefined;
  const paths = checkoutPaths(cwd);
  const call = parts.length === 1 ? packageScriptCall(parts[0]!, cwd, paths.top) : undefined;
  if (call === null) return undefined;
  if (call === undefined) return fromChain(command, parts, {}, paths);
  const scriptParts = parseAndChain(call.script);
  if (!scriptParts) return undefined;
  scriptParts.at(-1)!.push(...call.extraArgs);
  return fromChain(command, scriptParts, call.env, paths);
}

function fromChain(command: string, parts: ShellWord[][], env: Record<string, string>, paths: CheckoutPaths): RecognisedRunner | undefined {
  const earlier = parts.slice(0, -1);
  if (earlier.some((part) => startsRunner(part) || program(part)[0]?.text === 'cd')) return undefined;
  const last = parts.at(-1)!;
  const assignments = last.slice(0, last.length - program(last).length);
  let words = program(last);
  let launcher: ShellWord[] = [];
  if (words[0]?.text === 'npx') {
    const rest = words.slice(1).filter((word) => !NPX_DOWNLOAD_CHOICE.has(word.text));
    if (rest[0]?.text.startsWith('-')) return undefined;
    launcher = [ownWord('npx'), ownWord('--no-install')];
    words = rest;
  }
  const kind = RUNNERS.find((runner) => runner.starts(words));
  if (!kind) return undefined;
  const before = earlier.map((part) => `${joinWords(part)} && `).join('');
  const invocation: Invocation = { command, before, assignments, launcher, words, env, paths };
  return kind.recognise(invocation);
}

/** A simple command's words after its `NAME=value` assignments. */
function program(part: readonly ShellWord[]): ShellWord[] {
  const start = part.findIndex((word) => !isAssignment(word));
  return start < 0 ? [] : part.slice(start);
}

function startsRunner(part: readonly ShellWord[]): boolean {
  const words = program(part);
  const withoutNpx = words[0]?.text === 'npx' ? words.slice(1).filter((word) => !NPX_DOWNLOAD_CHOICE.has(word.text)) : words;
  return RUNNERS.some((runner) => runner.starts(withoutNpx));
}
