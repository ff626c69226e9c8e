import type { CheckoutPaths } from './checkoutPaths';
import { joinWords, type ShellWord } from './shellLine';
import type { RecognisedRunner, RunnerCommand, TestRunnerName } from './types';

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
