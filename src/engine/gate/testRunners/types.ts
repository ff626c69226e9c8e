/** The test runners whose results the gate reads test by test. */
export type TestRunnerName = 'node:test' | 'jest' | 'vitest' | 'mocha' | 'pytest' | 'go test';

/**
 * One test as the gate compares it. `id` is stable across checkouts of the same repository: the
 * repository-relative file (for go, the package folder) and the full test name (describe path
 * included), never an absolute path. A file or package that failed before any of its tests ran is
 * one test whose `id`, `name` and `file` are that file.
 */
export interface TestRef {
  id: string;
  /** The full name: describe titles joined by ` › ` (jest, vitest, node:test, mocha), `Class::test[param]` (pytest), `TestX/sub` (go). */
  name: string;
  /** Repository-relative file (go: package folder, `.` at the top). */
  file?: string;
}

export interface TestReport {
  runner: TestRunnerName;
  passed: number;
  skipped: number;
  /** At most FAILED_LIST_CAP of them; `failedCount` has them all. */
  failed: TestRef[];
  failedCount: number;
}

export type TestSelectionKind = TestSelection['kind'];

export type TestSelection =
  | { kind: 'all' }
  /** Rerun exactly these (the flaky check), by the runner's own selection. An empty list runs nothing. */
  | { kind: 'tests'; tests: TestRef[] }
  /** Repository-relative test files chosen by Taskloom (node:test and mocha). An empty list runs nothing. */
  | { kind: 'files'; files: string[] }
  /** Repository-relative changed files; the runner picks the tests they can affect. An empty list is 'all'. */
  | { kind: 'related'; changed: string[] };

/** A shell command for `sh -c` in the gate's cwd; `env` is laid over the gate's environment (its PATH already holds this process's PATH). */
export interface RunnerCommand {
  command: string;
  env: Record<string, string>;
}

/**
 * A runner recognised in one checkout: `commandFor` is for that checkout (an npm script's PATH
 * names its node_modules/.bin), so recognise again in another; `readReport` and `testFiles` name
 * files from the top of the checkout they are given.
 */
export interface RecognisedRunner {
  runner: TestRunnerName;
  /** The gate command as the user wrote it. */
  command: string;
  /** What it can select natively ('all' and 'tests' always). */
  selections: ReadonlySet<TestSelection['kind']>;
  /**
   * The command running `selection` and writing the report into `reportDir` (an existing, writable
   * folder outside the checkout). It clears that report first and may write a reporter module
   * there, so call it before each run. For 'all' it passes and fails exactly when the user's
   * command does.
   */
  commandFor(selection: TestSelection, reportDir: string): RunnerCommand;
  /** What the run reported; undefined when there is no readable report (nothing ran, a crash, a report too big): judge by exit code. */
  readReport(reportDir: string, output: string, cwd: string): TestReport | undefined;
  /** node:test and mocha: the repository-relative test files the command runs; undefined when Taskloom cannot tell (select them all). */
  testFiles?(cwd: string): Promise<string[] | undefined>;
}
