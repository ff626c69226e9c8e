import { join } from 'node:path';
import type { CheckoutPaths } from './checkoutPaths';
import { clearReport } from './reportFiles';
import { joinWords, ownWord, type ShellWord } from './shellLine';
import type { RecognisedRunner, RunnerCommand, TestRunnerName, TestSelection } from './types';

/** A gate command whose last part starts a test runner, taken apart. */
export interface Invocation {
  /** The gate command as the user wrote it. */
  command: string;
  /** The earlier parts of the chain as written, with their `&&`: they still run first. */
  before: string;
  /** `NAME=value` words before the runner, as written. */
  assignments: ShellWord[];
  /** What starts the runner: `npx --no-install` (never a download) or nothing. */
  launcher: ShellWord[];
  /** The runner's program and arguments, as written. */
  words: ShellWord[];
  env: Record<string, string>;
  paths: CheckoutPaths;
}

/** One runner: how its command looks, and how it is run and read. */
export interface RunnerKind {
  name: TestRunnerName;
  /** True when `words` (assignments and `npx` left out) start this runner. */
  starts(words: readonly ShellWord[]): boolean;
  /** The runner, or undefined when this invocation of it is one Taskloom does not take over. */
  recognise(invocation: Invocation): RecognisedRunner | undefined;
}

/** The shell command running the runner with `words` (its program first), after the chain's earlier parts. */
export const runnerCommand = (invocation: Invocation, words: readonly ShellWord[]): RunnerCommand => ({
  command: invocation.before + joinWords([...invocation.assignments, ...invocation.launcher, ...words]),
  env: invocation.env,
});

/** An empty selection runs nothing. */
export const NOTHING_TO_RUN: RunnerCommand = { command: 'true', env: {} };

/** Repository-relative files as words the runner takes: relative to its cwd. */
export const pathWords = (invocation: Invocation, files: readonly string[]): ShellWord[] => files.map((file) => ownWord(invocation.paths.forRunner(file)));

/**
 * The `commandFor` of a runner told where to report by words after the selection's: the last
 * report (`reportFile` in the report folder) cleared, then the runner run with `selectedWords`
 * (its program first; undefined runs nothing) and the words `reporting` gives for the folder.
 */
export function selectThenReport(
  invocation: Invocation,
  reportFile: string,
  selectedWords: (selection: TestSelection) => ShellWord[] | undefined,
  reporting: (reportDir: string) => ShellWord[],
): RecognisedRunner['commandFor'] {
  return (selection, reportDir) => {
    clearReport(join(reportDir, reportFile));
    const words = selectedWords(selection);
    return words ? runnerCommand(invocation, [...words, ...reporting(reportDir)]) : NOTHING_TO_RUN;
  };
}
