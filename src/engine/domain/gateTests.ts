import type { GateJudgement } from './decisionFact';
import type { GateCommandResult } from './events';

/**
 * What the gate learnt test by test, where it recognised the command's runner (gate/testRunners):
 * the failures are judged against the run's baseline (the same command on the run's base), so a
 * task answers for what it changed, not for what was already broken.
 */

/** One test; `id` is the same in every checkout of the repository (repo-relative file and full name). */
export interface TestRef {
  id: string;
  name: string;
  file?: string;
}

/** Which tests a task gate ran: every test, or those its change can affect (and why those); `none`: no test can be affected, so the command did not run. */
export type GateSelection = { kind: 'all'; why?: string } | { kind: 'affected'; how: 'import graph' | 'runner' | 'workspace packages'; why: string; none?: true };

export interface GateTestOutcome {
  runner: string;
  passed: number;
  skipped: number;
  /** Every test that failed in this run (capped by the runner's reader). */
  failed: TestRef[];
  /** Failed here but not on the base: what fails the gate, and what the actor is asked to fix. */
  newFailures: TestRef[];
  /** Failed here and on the base: shown as "already failing on main", never the actor's job. */
  alreadyFailing: TestRef[];
  /** Failed, then passed when run again alone: recorded, not a failure. */
  flaky: TestRef[];
}

/** The baseline's failing tests of one command (by id), or undefined when the base has no report of it. */
export type BaselineFailures = ReadonlySet<string> | undefined;

/** Splits a run's failures into new ones and those the base already had. */
export function againstBaseline(failed: readonly TestRef[], baseline: ReadonlySet<string>): { newFailures: TestRef[]; alreadyFailing: TestRef[] } {
  const newFailures: TestRef[] = [];
  const alreadyFailing: TestRef[] = [];
  for (const test of failed) (baseline.has(test.id) ? alreadyFailing : newFailures).push(test);
  return { newFailures, alreadyFailing };
}

/** "a, b and 3 more" for a line a person reads. */
export function testNames(tests: readonly TestRef[], shown = 3): string {
  const names = tests.slice(0, shown).map((t) => t.name);
  const more = tests.length - names.length;
  return more > 0 ? `${names.join(', ')} and ${more} more` : names.join(', ');
}

/** A base command that failed where no runner said which tests: only the user can say whether it counts. */
export const needsBaselineChoice = (c: Pick<GateCommandResult, 'exitCode' | 'tests'>): boolean => c.exitCode !== 0 && c.tests === undefined;

/** The ledger's facts of a gate's commands besides their exit codes. */
export function gateJudgement(commands: readonly GateCommandResult[], cachedFrom?: { taskId: string | null; attempt: number }): GateJudgement {
  const names = (pick: (t: GateTestOutcome) => TestRef[]) => commands.flatMap((c) => (c.tests ? pick(c.tests).map((t) => t.name) : []));
  const alreadyFailing = names((t) => t.alreadyFailing);
  const flaky = names((t) => t.flaky);
  const advisory = commands.filter((c) => c.advisory).map((c) => c.command);
  const selection = commands.flatMap((c) => (c.selection?.kind === 'affected' ? [`\`${c.command}\`: ${c.selection.why}`] : []));
  return {
    ...(alreadyFailing.length ? { alreadyFailing } : {}),
    ...(flaky.length ? { flaky } : {}),
    ...(advisory.length ? { advisory } : {}),
    ...(selection.length ? { selection } : {}),
    ...(cachedFrom ? { cachedFrom } : {}),
  };
}
