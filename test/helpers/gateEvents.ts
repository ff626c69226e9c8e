import type { GateCommandResult, RunEventBody } from '../../src/engine/domain/events';
import { needsBaselineChoice, type GateTestOutcome, type TestRef } from '../../src/engine/domain/gateTests';
import { baselineChoiceWords } from '../../src/engine/text/gateWords';

// The gate's judgement as the engine records it (issue 27): the baseline on the run's base, task
// gates judged against it, what the integration gate caught. Bodies for EventBuilder, a RunStore
// or a session's emit.

export const testRef = (name: string, file = 'test/all.test.js'): TestRef => ({ id: `${file}::${name}`, name, file });

/** A command's result; `tests` where a runner was recognised. */
export function command(command: string, exitCode: number, tests?: Partial<GateTestOutcome>, over: Partial<GateCommandResult> = {}): GateCommandResult {
  return {
    command,
    exitCode,
    timedOut: false,
    durationMs: 1200,
    output: exitCode === 0 ? 'ok\n' : `${command} failed\n`,
    ...(tests ? { tests: { runner: 'node:test', passed: 10, skipped: 0, failed: [], newFailures: [], alreadyFailing: [], flaky: [], ...tests } } : {}),
    ...over,
  };
}

/** The test that fails on the base in these runs: not any task's. */
export const BROKEN_ON_BASE = testRef('parses dates in the local zone');

/** The base as a user's repository often is: one known-broken test (`npm test`, judged test by test), and a lint that fails with no runner to say what. */
export const BASE_COMMANDS: GateCommandResult[] = [
  command('npm test', 1, { failed: [BROKEN_ON_BASE], passed: 211 }),
  command('npm run lint', 1, undefined, { output: 'src/a.js: 3 problems\n' }),
];

export const baselineResult = (baseCommit: string, commands = BASE_COMMANDS): RunEventBody => ({
  type: 'baseline_result',
  commit: baseCommit,
  tree: 'e'.repeat(40),
  key: `baseline-${baseCommit.slice(0, 8)}`,
  commands,
});

/** What the drive records when the base (`base`, its branch) fails a command no runner explained: the baseline, then the pause for the user's choice. */
export const pausedOnBase = (baseCommit: string, commands = BASE_COMMANDS, base = 'main'): RunEventBody[] => [
  baselineResult(baseCommit, commands),
  { type: 'run_paused', reason: baselineChoiceWords(commands.filter(needsBaselineChoice).map((c) => c.command), base) },
];
